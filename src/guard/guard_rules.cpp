#include "guard_rules.h"

namespace ar::guard_detail {

const std::vector<RuleInfo>& rule_infos() {
  static const std::vector<RuleInfo> kRules = {
      {kRuleScope, "is outside the editable files"},
      {kRuleHostThread, "starts host threads"},
      {kRuleStreamGraph, "uses streams, graphs, events or kernel launches"},
      {kRuleCudaRuntime, "calls the CUDA runtime or driver"},
      {kRuleTimer, "uses a timer"},
      {kRuleStaticCache, "keeps mutable state across calls"},
      {kRuleConstructor, "runs code at load or exit time"},
      {kRuleIo, "reaches files, the environment, the network or other processes"},
      {kRuleLineDirective, "rewrites line markers, which would hide code from the guard"},
      {kRuleScanInput, "cannot be scanned"},
      {kRuleImport, "calls a library function a kernel has no use for"},
      {kRuleSpecialRegister, "reads a special register that tells one launch from another"},
      {kRuleCompiledInput, "cannot be read by the compiled-code scan"},
  };
  return kRules;
}

std::string rule_description(const std::string& id) {
  for (const auto& r : rule_infos())
    if (id == r.id) return r.description;
  return "breaks guard rule " + id;
}

// The table. Identifier rules never fire after `.`/`->` (a member named `clock`
// is not the libc function) and never on string contents. Names that are also
// ordinary variable names (`time`, `clock`, `open`, `system`) only count when
// used as a function (Use). Keep the lists sorted by why they are here, not
// alphabetically: the comment above each row is the reason.
const std::vector<Matcher>& matchers() {
  static const std::vector<Matcher> kMatchers = {
      // Timers: a kernel that can read a clock can tell when it is being timed.
      // cudaEventElapsedTime comes before the stream rule so it reads as a timer.
      {kRuleTimer, Match::Word,
       {"clock64", "__clock64", "clock_gettime", "clock_getres", "gettimeofday", "timespec_get", "ftime",
        "getrusage", "setitimer", "getitimer", "timer_create", "timer_settime", "__rdtsc", "__rdtscp",
        "_rdtsc", "rdtsc", "__builtin_ia32_rdtsc", "__builtin_ia32_rdtscp", "__builtin_readcyclecounter",
        "__builtin_readsteadycounter", "__globaltimer", "globaltimer", "chrono", "high_resolution_clock",
        "steady_clock", "system_clock", "cudaEventElapsedTime", "cuEventElapsedTime",
        "QueryPerformanceCounter", "mach_absolute_time"}},
      // libcu++ exposes PTX special registers as functions (cuda::ptx::get_sreg_clock64()).
      {kRuleTimer, Match::Prefix, {"get_sreg_clock", "get_sreg_globaltimer"}},
      {kRuleTimer, Match::Use, {"clock", "time", "times", "alarm"}},
      {kRuleTimer, Match::AsmRegister,
       {"clock", "clock_hi", "clock64", "globaltimer", "globaltimer_lo", "globaltimer_hi"}},
      {kRuleTimer, Match::AsmWord, {"rdtsc", "rdtscp", "rdpmc", "cntvct_el0", "cntpct_el0", "pmccntr_el0"}},

      // Host threads: work spread over threads the harness does not see is work the
      // timing does not account for (and 2 shared cores are already busy).
      {kRuleHostThread, Match::Qualified,
       {"std::thread", "std::jthread", "std::async", "std::packaged_task", "execution::par",
        "execution::par_unseq"}},
      {kRuleHostThread, Match::Prefix, {"pthread_", "thrd_", "omp_", "__kmpc_", "GOMP_", "__gthread_"}},
      {kRuleHostThread, Match::Word, {"fork", "vfork", "tbb", "cilk_spawn", "cilk_for", "cilk_sync"}},
      {kRuleHostThread, Match::Use, {"clone"}},
      // `omp simd` only vectorises; every other OpenMP/OpenACC directive may spawn threads.
      {kRuleHostThread, Match::Pragma, {"omp", "acc"}, {"omp simd", "omp declare simd", "omp end declare"}},

      // Streams, graphs, events and launches: work on a side stream escapes the
      // captured graph the harness times; the kernel never launches anything itself.
      {kRuleStreamGraph, Match::Prefix,
       {"cudaStream", "cudaGraph", "cudaEvent", "cudaLaunch", "cuStream", "cuGraph", "cuEvent", "cuLaunch",
        "CUstream", "CUevent", "CUgraph"}},
      {kRuleStreamGraph, Match::LaunchChevrons, {"<<<"}, {}, true},

      // The runtime at all: device-only kernel code has no business with memory
      // management, synchronisation or device state.
      {kRuleCudaRuntime, Match::Prefix,
       {"cudaMalloc", "cudaFree", "cudaMem", "cudaHost", "cudaDevice", "cudaSetDevice", "cudaThread",
        "cudaIpc", "cudaGetSymbol", "cudaFunc", "cuMem", "cuCtx", "cuModule", "cuLibrary", "cuInit",
        "cuDevice", "cuFunc", "__cudaPush", "__cudaPop", "__cudaRegister", "__cudaLaunch"}},
      {kRuleCudaRuntime, Match::RuntimeCall, {"cuda", "__cuda"}},

      // Mutable state that outlives a call can carry results from the checked run
      // into the timed one.
      {kRuleStaticCache, Match::Word, {"thread_local", "__thread", "_Thread_local"}},
      // `.global .u32 x;` in inline PTX declares a module variable the kernel keeps;
      // `ld.global`/`st.global` (an instruction suffix) are fine.
      {kRuleStaticCache, Match::AsmDirective, {".global"}},
      {kRuleStaticCache, Match::Structural, {}, {}, false,
       "declaration_scan.cpp: non-const static/namespace-scope/__device__/__managed__/extern variables, "
       "static storage initialised by an allocation, mutable members, const_cast or C-style "
       "casts of const statics"},

      // Code that runs when the library is loaded or unloaded runs outside any timing.
      {kRuleConstructor, Match::Attribute,
       {"constructor", "__constructor__", "destructor", "__destructor__", "ifunc", "__ifunc__", "section",
        "__section__"}},
      {kRuleConstructor, Match::Word, {"atexit", "at_quick_exit", "__cxa_atexit", "on_exit", "__cxa_thread_atexit"}},
      {kRuleConstructor, Match::AsmText, {".init_array", ".preinit_array", ".fini_array", ".ctors", ".dtors"}},
      {kRuleConstructor, Match::Structural, {}, {}, false, "declaration_scan.cpp: asm at namespace scope"},

      // Files, environment, network, processes: a side channel to precomputed
      // results, to the harness, or to the outside.
      {kRuleIo, Match::Word,
       {"fopen", "fopen64", "freopen", "fdopen", "tmpfile", "popen", "openat", "creat", "unlink", "unlinkat",
        "rmdir", "mkfifo", "ifstream", "ofstream", "fstream", "basic_ifstream", "basic_ofstream",
        "basic_fstream", "filebuf", "basic_filebuf", "filesystem", "getenv", "secure_getenv", "setenv",
        "putenv", "unsetenv", "clearenv", "environ", "__environ", "socket", "socketpair", "getaddrinfo",
        "gethostbyname", "execl", "execlp", "execle", "execv", "execvp", "execve", "execvpe", "fexecve",
        "posix_spawn", "posix_spawnp", "dlopen", "dlmopen", "dlsym", "dlvsym", "mmap", "mmap64", "shm_open",
        "shmget", "shmat", "ptrace", "syscall", "ioctl", "sigaction", "inotify_init"}},
      {kRuleIo, Match::Use, {"open", "system", "connect", "accept", "listen", "recv", "recvfrom", "sendto",
                             "kill", "signal", "rename"}},
      {kRuleIo, Match::AsmWord, {"syscall", "sysenter", "svc"}},
      {kRuleIo, Match::Structural, {}, {}, false, "preprocessed_lines.cpp: #include of a /proc or /dev path"},

      {kRuleLineDirective, Match::Structural, {}, {}, false,
       "preprocessed_lines.cpp: a marker that renames an editable file; line_directives.cpp: #line or "
       "`# N \"file\"` in the editable source itself"},
      {kRuleScope, Match::Structural, {}, {}, false,
       "scope_guard.cpp: a changed path that is not <package>/<editable> or <package>/<tunables_file>"},
      {kRuleScanInput, Match::Structural, {}, {}, false,
       "source_scan.cpp: the preprocessed text never enters an editable file"},

      // The compiled code (compiled_scan.h), whatever the source spelling: the
      // same rules, seen in what the compiler produced.
      {kRuleTimer, Match::Structural, {}, {}, false,
       "ptx_scan.cpp: %clock, %clock64, %globaltimer*, %pm*; sass_scan.cpp: S2R/CS2R/S2UR of SR_CLOCK*, "
       "SR_GLOBALTIMER*; shared_object_scan.cpp (objdump -d): rdtsc, rdtscp, rdpmc; import_rules.cpp: clock_gettime, chrono"},
      {kRuleSpecialRegister, Match::Structural, {}, {}, false, "ptx_scan.cpp: %envreg*, %gridid"},
      {kRuleStreamGraph, Match::Structural, {}, {}, false,
       "ptx_scan.cpp / cubin_scan.cpp: device-side launches (__cudaCDP2LaunchDevice, ...GetParameterBuffer), "
       "device graphs, streams, events"},
      {kRuleIo, Match::Structural, {}, {}, false,
       "vprintf in PTX or the cubin; a host import of files, environment, network, the loader; syscall, "
       "sysenter, int $0x80 in objdump output"},
      {kRuleStaticCache, Match::Structural, {}, {}, false,
       "device malloc/free (the device heap outlives a launch); .extern .global/.const in PTX; "
       "__cxa_guard_acquire, __cxa_atexit, __tls_get_addr imports; a PT_TLS segment"},
      {kRuleConstructor, Match::Structural, {}, {}, false,
       "shared_object_scan.cpp: .init_array/.fini_array entries beyond the C runtime's frame_dummy and "
       "__do_global_dtors_aux; any .preinit_array"},
      {kRuleHostThread, Match::Structural, {}, {}, false, "import_rules.cpp: pthread_*, std::thread, std::async, OpenMP"},
      {kRuleImport, Match::Structural, {}, {}, false,
       "import_rules.cpp: a host import outside the allow-list (memory, math, C++ allocation and exceptions); "
       "an undefined cubin symbol other than __assertfail"},
      {kRuleCompiledInput, Match::Structural, {}, {}, false,
       "compiled_scan.cpp: the artifact cannot be read or is not well-formed ELF"},
  };
  return kMatchers;
}

bool applies(const Matcher& m, Backend backend) { return !m.cuda_only || backend == Backend::Cuda; }

}  // namespace ar::guard_detail
