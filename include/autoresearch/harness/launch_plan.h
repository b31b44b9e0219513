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

// LaunchStage::flags.
// kStageProgrammatic: the stage may be launched while the stage before it still runs (programmatic
// dependent launch, sm_90+): its blocks can be resident and waiting when the earlier stage's last
// blocks finish, so the launch gap between the two stages is hidden. The stage must execute
// `griddepcontrol.wait` (cudaGridDependencySynchronize) before it reads anything an earlier stage
// wrote: that instruction waits for the earlier stages to complete and their writes to be visible.
// The earlier stage may execute `griddepcontrol.launch_dependents` to let it launch before its own
// blocks exit. Honoured on stages 1.. only: on stage 0 it would overlap the call before, and the
// timing measures one call at a time.
inline constexpr unsigned kStageProgrammatic = 1u;
inline constexpr unsigned kKnownStageFlags = kStageProgrammatic;

struct LaunchStage {
  unsigned grid[3];
  unsigned block[3];
  unsigned shared_bytes;   // dynamic shared memory
  union {
    unsigned flags;        // kStage* bits; 0: a plain launch after the stage before has finished
    unsigned reserved;     // the field's name before flags existed (plans that zero it keep working)
  };
};

// The flags the harness honours for stage `index`: none where the field holds bits it does not know (a
// plan that never wrote the field: the harness fills the plan with 0xFF bytes before ar_plan runs), and
// never kStageProgrammatic on stage 0.
AR_HOST_DEVICE inline unsigned honoured_stage_flags(const LaunchStage& stage, int index) {
  if ((stage.flags & ~kKnownStageFlags) != 0u) return 0u;
  return index == 0 ? stage.flags & ~kStageProgrammatic : stage.flags;
}

struct LaunchPlan {
  int num_stages;                      // 1..kMaxLaunchStages
  int status;                          // 0: runnable; otherwise the kernel cannot run this workload
  unsigned long long workspace_bytes;  // 0: none
  LaunchStage stage[kMaxLaunchStages];
  int delegate;                        // with num_stages == 0: the variant k whose ar_k<k>_plan decides
  int reserved;
};

}  // namespace ar
