#pragma once
// The contract between the CUDA harness and a kernel package's device code.
//
// A candidate is compiled to device code only (a cubin) and loaded by the
// protected harness, so it cannot carry host code. It exports, with C linkage:
//
//   extern "C" __global__ void ar_plan(Params p, int num_sms, ar::LaunchPlan* plan);
//   extern "C" __global__ void ar_stage0(Params p);   // ... up to ar_stage3
//
// where Params is the package's parameter struct (the blob Problem::params()
// returns). ar_plan runs once per workload with one thread, outside timing, and
// fills the plan from the shapes in `p`: how many stages, each stage's grid,
// block and dynamic shared memory, and the scratch workspace it needs. The
// harness allocates the workspace (filled with 0xFF, never zero: a kernel that
// needs zeros writes them itself), writes its address into Params at
// Problem::workspace_offset(), and launches the stages in order on one stream,
// captured into a CUDA graph for timing.
//
// Dispatch (`autoresearch dispatch`): one cubin may hold several variants of a
// kernel, variant k's entry points renamed ar_k<k>_plan and ar_k<k>_stage0..3
// (k >= 1). Its ar_plan picks a variant from the shapes and hands the plan to
// it: num_stages = 0, status = 0, delegate = k. The harness then runs
// ar_k<k>_plan the same way and launches ar_k<k>_stage<i>. Host code that
// deploys such a cubin does the same two steps. `delegate` is read only when
// num_stages is 0, so a plan that never writes it is unaffected.
#ifndef AR_HOST_DEVICE
#if defined(__CUDACC__)
#define AR_HOST_DEVICE __host__ __device__
#else
#define AR_HOST_DEVICE
#endif
#endif

namespace ar {

inline constexpr int kMaxLaunchStages = 4;
inline constexpr int kMaxDispatchVariants = 16;

struct LaunchStage {
  unsigned grid[3];
  unsigned block[3];
  unsigned shared_bytes;   // dynamic shared memory
  unsigned reserved;
};

struct LaunchPlan {
  int num_stages;                      // 1..kMaxLaunchStages
  int status;                          // 0: runnable; otherwise the kernel cannot run this workload
  unsigned long long workspace_bytes;  // 0: none
  LaunchStage stage[kMaxLaunchStages];
  int delegate;                        // with num_stages == 0: the variant k whose ar_k<k>_plan decides
  int reserved;
};

}  // namespace ar
