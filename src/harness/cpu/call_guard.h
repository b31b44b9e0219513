#pragma once
// What one call of a CPU kernel may not leave behind, checked around every call
// (verification and every timed sample alike), whatever the kernel's source
// says. A CPU kernel runs inside the harness process, so these are structural
// facts about the process, not patterns in the code:
//
//   host-thread  the process has more threads after the call than before; other
//                threads used CPU time during the call (spawned and joined, an
//                async task, a thread pool); the call started a child process
//                (one still there, or one reaped: the children's CPU time grew).
//   state        the kernel's writable data differs from its state after load
//                (KernelLibrary::writable_changes: a static cache, a counter,
//                a guard variable of a function-local static, whatever its
//                spelling); it declares thread-local storage; it changed the
//                floating-point environment (rounding, flush-to-zero: they
//                outlive the call and change the harness's own arithmetic); it
//                wrote its params struct (the same memory on every call).
//
// Two channels are closed rather than checked: errno is zeroed and the
// floating-point exception flags are cleared before every call, so neither can
// carry a count from one call to the next.
//
// A failure throws GuardError(rule, message, slot); a host-thread one carries
// {"exits":true} and is fatal (the harness exits after replying: what the kernel
// started may still run and would steal time from every later sample).
#include <cstddef>
#include <string>
#include <vector>

#include "cpu/kernel_library.h"

namespace ar::harness {

inline constexpr const char* kGuardRuleState = "state";
inline constexpr const char* kGuardRuleHostThread = "host-thread";

// CPU time that threads other than the caller may use during a call before it
// counts as work done off the calling thread. The harness has no other threads,
// so an honest call measures 0; the slack absorbs the two clocks being read a
// few instructions apart.
inline constexpr double kOtherThreadCpuSlackSeconds = 20e-6;

// The process as the kernel must leave it.
struct ProcessSnapshot {
  long threads = 0;             // /proc/self/stat num_threads
  double process_cpu_s = 0;     // CLOCK_PROCESS_CPUTIME_ID (all threads, dead ones too)
  double thread_cpu_s = 0;      // CLOCK_THREAD_CPUTIME_ID (this thread)
  double children_cpu_s = 0;    // RUSAGE_CHILDREN: children reaped so far
  unsigned fp_control = 0;      // rounding, masks, FTZ/DAZ; never the sticky flags
  std::vector<unsigned char> params;
};

class CallGuard {
 public:
  // Right before the call: records the process, zeroes errno, clears the
  // floating-point exception flags. `params` is the kernel's argument.
  ProcessSnapshot before(const void* params, size_t params_size) const;
  // Right after it: throws GuardError on the first broken rule, with
  // the floating-point environment restored first so the harness computes on.
  void after(const ProcessSnapshot& before, const KernelLibrary& library, const void* params,
             const std::string& slot) const;
  // At the first call of a slot: things the loaded object must not have at all.
  void check_loaded(const KernelLibrary& library, const std::string& slot) const;
};

// Building blocks, exposed for the tests.
long process_thread_count();   // -1 when /proc is unreadable
bool process_has_children();   // a child process exists (running or a zombie)
unsigned fp_control_word();    // the control part of the floating-point environment
void set_fp_control_word(unsigned word);

}  // namespace ar::harness
