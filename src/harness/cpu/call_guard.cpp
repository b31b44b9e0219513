#include "cpu/call_guard.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cfenv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "common/device.h"

namespace ar::harness {

namespace {

double clock_seconds(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double children_cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_CHILDREN, &ru);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return s(ru.ru_utime) + s(ru.ru_stime);
}

std::string micros(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f µs", seconds * 1e6);
  return text;
}

std::string hex(unsigned v) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%x", v);
  return text;
}

// A thread or process the kernel started may still run (and take CPU time
// from every later sample, or write anywhere): the harness must not go on.
[[noreturn]] void fail(const char* rule, const std::string& message, const std::string& slot) {
  const bool contaminated = std::string(rule) == kGuardRuleHostThread;
  throw GuardError(rule, message, slot, contaminated ? nlohmann::json{{"exits", true}} : nlohmann::json::object());
}

// The floating-point environment of the harness's thread as it was before the
// call, to put back when the kernel changed it.
thread_local std::fenv_t saved_environment;

}  // namespace

long process_thread_count() {
  // read(), not stdio: no allocation between the kernel's return and the check.
  int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[1024];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so count
  // fields from the last ')'. num_threads is field 20; field 3 follows the ')'.
  const char* p = std::strrchr(buf, ')');
  if (!p) return -1;
  ++p;
  for (int field = 3; field < 20; ++field) {
    while (*p == ' ') ++p;
    while (*p && *p != ' ') ++p;
    if (!*p) return -1;
  }
  return std::strtol(p, nullptr, 10);
}

bool process_has_children() {
  siginfo_t info{};
  // WNOWAIT: look, never reap (a zombie stays for the next check to see too).
  return waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0 || errno != ECHILD;
}

unsigned fp_control_word() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned short x87 = 0;
  asm volatile("fnstcw %0" : "=m"(x87));
  // MXCSR bits 0-5 are the sticky exception flags, set by ordinary arithmetic:
  // not state the kernel chose. Everything above them is control.
  return (static_cast<unsigned>(x87) << 16) | (_mm_getcsr() & 0xffc0u);
#else
  return static_cast<unsigned>(std::fegetround());
#endif
}

void set_fp_control_word(unsigned word) {
#if defined(__x86_64__) || defined(__i386__)
  const unsigned short x87 = static_cast<unsigned short>(word >> 16);
  asm volatile("fldcw %0" ::"m"(x87));
  _mm_setcsr(word & 0xffc0u);
#else
  std::fesetround(static_cast<int>(word));
#endif
}

ProcessSnapshot CallGuard::before(const void* params, size_t params_size) const {
  ProcessSnapshot s;
  std::feclearexcept(FE_ALL_EXCEPT);
  std::fegetenv(&saved_environment);
  s.fp_control = fp_control_word();
  const auto* bytes = static_cast<const unsigned char*>(params);
  if (bytes) s.params.assign(bytes, bytes + params_size);
  s.threads = process_thread_count();
  s.children_cpu_s = children_cpu_seconds();
  // The thread clock is read outside the process clock (here and after the
  // call), so with no other thread the process clock's delta is never larger.
  s.thread_cpu_s = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
  s.process_cpu_s = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
  errno = 0;
  return s;
}

void CallGuard::after(const ProcessSnapshot& b, const KernelLibrary& library, const void* params,
                      const std::string& slot) const {
  const double process_cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
  const double thread_cpu = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
  const unsigned fp_control = fp_control_word();
  if (fp_control != b.fp_control) {
    std::fesetenv(&saved_environment);
    fail(kGuardRuleState,
         "the kernel keeps state across calls: it changed the floating-point environment (control " +
             hex(b.fp_control) + " -> " + hex(fp_control) + "), which outlives the call",
         slot);
  }

  const long threads = process_thread_count();
  if (b.threads > 0 && threads > b.threads)
    fail(kGuardRuleHostThread,
         "the kernel runs host threads: " + std::to_string(threads - b.threads) + " thread" +
             (threads - b.threads == 1 ? "" : "s") + " it started still run after it returned",
         slot);
  const double elsewhere = (process_cpu - b.process_cpu_s) - (thread_cpu - b.thread_cpu_s);
  if (elsewhere > kOtherThreadCpuSlackSeconds)
    fail(kGuardRuleHostThread,
         "the kernel runs host threads: other threads used " + micros(elsewhere) +
             " of CPU time during the call (the kernel must compute on the calling thread only)",
         slot);
  if (process_has_children() || children_cpu_seconds() != b.children_cpu_s)
    fail(kGuardRuleHostThread, "the kernel runs host threads: it started a child process", slot);

  if (!b.params.empty() && std::memcmp(params, b.params.data(), b.params.size()) != 0)
    fail(kGuardRuleState,
         "the kernel keeps state across calls: it wrote its params struct, which every call shares", slot);
  if (auto change = library.writable_changes())
    fail(kGuardRuleState, "the kernel keeps state across calls: " + *change, slot);
}

void CallGuard::check_loaded(const KernelLibrary& library, const std::string& slot) const {
  if (library.tls_bytes() > 0)
    fail(kGuardRuleState,
         "the kernel keeps state across calls: it declares " + std::to_string(library.tls_bytes()) +
             " bytes of thread-local storage",
         slot);
}

}  // namespace ar::harness
