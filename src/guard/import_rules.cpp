// rule_for_import: which library functions a compiled candidate may call.
// An allow-list, not a deny-list: a single-threaded numeric kernel needs memory
// and math routines and the C++ runtime's allocation and exception support;
// anything else it imports is a way out of the computation (a thread, a clock,
// a file, the dynamic loader) and is named by the rule it most likely serves.
#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <regex>
#include <set>

#include "compiled_scan.h"
#include "guard_rules.h"

namespace ar::guard_detail {

namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }
bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

std::string demangle(const std::string& name) {
  if (!starts_with(name, "_Z")) return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : name;
}

// Math: C's <math.h> functions in their double, float and long double forms,
// the old glibc -ffast-math names (__exp_finite) and libmvec's vector
// variants (_ZGV...), which a vectorised loop over expf calls.
bool is_math(const std::string& s) {
  static const std::set<std::string> kMath = {
      "sqrt", "cbrt", "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "pow", "sin", "cos", "tan",
      "sincos", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc",
      "tgamma", "lgamma", "hypot", "fma", "fmin", "fmax", "fdim", "fabs", "floor", "ceil", "trunc", "round",
      "lround", "llround", "rint", "lrint", "llrint", "nearbyint", "fmod", "remainder", "remquo", "ldexp", "frexp",
      "modf", "scalbn", "scalbln", "ilogb", "logb", "copysign", "nextafter", "nexttoward"};
  if (starts_with(s, "_ZGV")) return true;
  std::string base = s;
  if (starts_with(base, "__") && base.size() > 9 && base.compare(base.size() - 7, 7, "_finite") == 0)
    base = base.substr(2, base.size() - 9);
  if (kMath.count(base)) return true;
  if (!base.empty() && (base.back() == 'f' || base.back() == 'l')) return kMath.count(base.substr(0, base.size() - 1)) > 0;
  return false;
}

bool host_allowed(const std::string& s) {
  static const std::set<std::string> kAllowed = {
      // the C runtime's own weak references (crtbeginS.o)
      "__cxa_finalize", "__gmon_start__", "_ITM_deregisterTMCloneTable", "_ITM_registerTMCloneTable",
      // memory
      "memcpy", "memmove", "memset", "memcmp", "memchr", "__memcpy_chk", "__memmove_chk", "__memset_chk", "strlen",
      "strcmp", "strncmp", "malloc", "free", "calloc", "realloc", "aligned_alloc", "posix_memalign", "memalign",
      // failure paths the compiler emits
      "abort", "__assert_fail", "__stack_chk_fail", "__cxa_pure_virtual", "__cxa_deleted_virtual",
      // exceptions (std::vector can throw)
      "__cxa_allocate_exception", "__cxa_free_exception", "__cxa_throw", "__cxa_rethrow", "__cxa_begin_catch",
      "__cxa_end_catch", "__cxa_get_exception_ptr", "__gxx_personality_v0", "_Unwind_Resume", "_ZSt9terminatev",
      // libgcc arithmetic helpers (128-bit division, complex, half/bf16 conversions)
      "__divti3", "__udivti3", "__modti3", "__umodti3", "__popcountdi2", "__mulsc3", "__muldc3", "__divsc3",
      "__divdc3", "__powisf2", "__powidf2", "__extendhfsf2", "__truncsfhf2", "__truncdfhf2", "__extendbfsf2",
      "__truncsfbf2", "__truncdfbf2"};
  if (kAllowed.count(s) || is_math(s)) return true;
  // operator new/delete in all their forms (sized, aligned, nothrow, arrays)
  if (starts_with(s, "_Znw") || starts_with(s, "_Zna") || starts_with(s, "_Zdl") || starts_with(s, "_Zda")) return true;
  // std::__throw_length_error and friends; the runtime's type-info vtables
  static const std::regex kThrow("_ZSt[0-9]+__throw_[a-z_]+.*");
  if (std::regex_match(s, kThrow)) return true;
  return starts_with(s, "_ZTVN10__cxxabiv1") || starts_with(s, "_ZTISt") || starts_with(s, "_ZTSSt");
}

const char* host_rule(const std::string& s) {
  const std::string d = demangle(s);
  // Imports that are state in themselves.
  if (starts_with(s, "__cxa_guard_") || s == "__cxa_atexit" || s == "__cxa_thread_atexit" ||
      s == "__cxa_thread_atexit_impl" || s == "__tls_get_addr" || s == "__emutls_get_address")
    return kRuleStaticCache;
  static const char* kThreadPrefixes[] = {"pthread_", "thrd_", "omp_", "GOMP_", "__kmpc_", "sem_", "mtx_", "cnd_"};
  for (const char* p : kThreadPrefixes)
    if (starts_with(s, p)) return kRuleHostThread;
  static const std::set<std::string> kThreads = {"fork", "vfork", "clone", "clone3", "__clone", "daemon"};
  if (kThreads.count(s) || has(d, "std::thread") || has(d, "std::jthread") || has(d, "__future_base") ||
      has(d, "std::async") || has(d, "std::__basic_future") || has(d, "tbb::") || has(d, "__gthread"))
    return kRuleHostThread;
  static const std::set<std::string> kTimers = {
      "clock_gettime", "clock_getres", "clock", "time", "times", "gettimeofday", "timespec_get", "ftime", "getrusage",
      "setitimer", "getitimer", "alarm", "ualarm", "clock_nanosleep", "nanosleep", "usleep", "sleep"};
  if (kTimers.count(s) || starts_with(s, "timer_") || has(d, "chrono::")) return kRuleTimer;
  static const char* kIoPrefixes[] = {"fopen", "freopen", "fdopen", "open", "creat", "unlink", "rmdir", "mkdir",
                                      "exec", "posix_spawn", "dl", "_dl_", "mmap", "munmap", "mprotect", "shm_",
                                      "sem_open", "sig", "socket", "getaddrinfo", "gethostby", "inotify_"};
  for (const char* p : kIoPrefixes)
    if (starts_with(s, p)) return kRuleIo;
  static const std::set<std::string> kIo = {
      "getenv", "secure_getenv", "setenv", "putenv", "unsetenv", "clearenv", "environ", "__environ", "_r_debug",
      "getauxval", "system", "popen", "connect", "bind", "listen", "accept", "accept4", "send", "sendto", "sendmsg",
      "recv", "recvfrom", "recvmsg", "read", "write", "pread", "pwrite", "readv", "writev", "ioctl", "syscall",
      "ptrace", "kill", "raise", "printf", "puts", "putchar", "fputs", "fputc", "fwrite", "fprintf", "vprintf",
      "vfprintf", "fflush", "fclose", "fread", "fgets", "fscanf", "scanf", "sscanf", "perror", "stdout", "stderr",
      "stdin", "tmpfile", "rename", "remove", "stat", "fstat", "lstat", "access", "chdir", "getcwd", "getpid"};
  if (kIo.count(s) || has(d, "fstream") || has(d, "filebuf") || has(d, "std::filesystem") || has(d, "std::cout") ||
      has(d, "std::cerr") || has(d, "std::clog") || has(d, "std::cin") || has(d, "basic_ostream") ||
      has(d, "basic_istream") || has(d, "std::random_device"))
    return kRuleIo;
  return kRuleImport;
}

const char* device_rule(const std::string& s) {
  if (s == "vprintf") return kRuleIo;
  // The device heap outlives the launch that allocated from it.
  if (s == "malloc" || s == "free" || s == "__nv_aligned_device_malloc") return kRuleStaticCache;
  // Dynamic parallelism (CUDA 12+: __cudaCDP2LaunchDevice, __cudaCDP2GetParameterBuffer),
  // device-side graphs, streams and events.
  if (has(s, "CDP") || has(s, "LaunchDevice") || has(s, "ParameterBuffer") || has(s, "Graph") || has(s, "Stream") ||
      has(s, "Event"))
    return kRuleStreamGraph;
  if (starts_with(s, "cuda") || starts_with(s, "__cuda") || starts_with(s, "cu")) return kRuleCudaRuntime;
  return kRuleImport;
}

}  // namespace

std::string readable_symbol(const std::string& symbol) { return demangle(symbol); }

std::string rule_for_import(const std::string& symbol, bool cuda) {
  if (symbol.empty()) return "";
  if (cuda) {
    // __assertfail is assert() (the driver traps); the reserved shared-memory
    // markers are the compiler's own weak references.
    if (symbol == "__assertfail" || starts_with(symbol, ".nv.reservedSmem") || starts_with(symbol, "__nv_reservedSMEM"))
      return "";
    return device_rule(symbol);
  }
  return host_allowed(symbol) ? "" : host_rule(symbol);
}

}  // namespace ar::guard_detail
