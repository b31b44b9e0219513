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
#ifndef AR_HOST_DEVICE
#if defined(__CUDACC__)
#define AR_HOST_DEVICE __host__ __device__
#else
#define AR_HOST_DEVICE
#endif
#endif

namespace ar {

inline constexpr int kMaxLaunchStages = 4;

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
};

}  // namespace ar
