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
// Bits 8..15: the stage's thread-block cluster size along x (0 or 1: no cluster). A cluster's blocks run
// at the same time on one GPC and may read and write each other's shared memory (distributed shared
// memory, barrier.cluster). grid[0] must be a multiple of it; at most kMaxClusterSize (more than 8 is
// a non-portable size, which the harness allows on the stage). ar::stage_cluster(n) writes it.
inline constexpr unsigned kStageClusterShift = 8u;
inline constexpr unsigned kStageClusterMask = 0xFFu << kStageClusterShift;
inline constexpr unsigned kMaxClusterSize = 16u;
inline constexpr unsigned kKnownStageFlags = kStageProgrammatic | kStageClusterMask;

AR_HOST_DEVICE constexpr unsigned stage_cluster(unsigned blocks) { return (blocks & 0xFFu) << kStageClusterShift; }

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

// The cluster size the harness launches stage `index` with: 1 (no cluster) unless the honoured flags
// name one.
AR_HOST_DEVICE inline unsigned honoured_cluster_size(const LaunchStage& stage, int index) {
  const unsigned n = (honoured_stage_flags(stage, index) & kStageClusterMask) >> kStageClusterShift;
  return n == 0u ? 1u : n;
}

// Tensor maps (TMA descriptors, CUtensorMap) for cp.async.bulk.tensor. A cubin has no host code, so
// it cannot encode one (cuTensorMapEncodeTiled is a host call): the plan asks the harness instead. For
// each request the harness encodes a tiled map over one of the problem's buffers (the pointer stored
// in Params at `param_offset`) or over the workspace, and writes its 128 bytes into the workspace at
// `map_offset`, again before every launch (the workspace is refilled with 0xFF first) and per rotation
// (each rotation has its own buffers). The kernel reads the map at workspace + map_offset, after
// `fence.proxy.tensormap::generic.acquire.sys [map], 128;` (the host wrote the map with a copy, not the
// tensor-map proxy: the CUDA programming guide asks for the .sys scope then). The map may reach only its own buffer: the harness refuses a request whose
// dimensions and strides address a byte outside the allocation that holds the base address.
inline constexpr int kMaxTensorMaps = 8;
inline constexpr int kTensorMapBytes = 128;     // sizeof(CUtensorMap); map_offset is a multiple of it
inline constexpr int kTensorMapFromParams = 0;  // base: the pointer stored in Params at param_offset
inline constexpr int kTensorMapFromWorkspace = 1;

struct TensorMapRequest {
  unsigned long long global_dim[5];     // elements per dimension, dimension 0 innermost (contiguous)
  unsigned long long global_stride[4];  // bytes from one index of dimension i+1 to the next (i < rank-1)
  unsigned long long byte_offset;       // added to the base address (a multiple of 16)
  unsigned long long map_offset;        // where in the workspace the harness writes the map
  unsigned box_dim[5];                  // the box one copy moves, per dimension (<= 256 each)
  unsigned element_stride[5];           // 1 for a dense box
  int source;                           // kTensorMapFrom*
  int param_offset;                     // with kTensorMapFromParams: the pointer's byte offset in Params
  int data_type;                        // a CUtensorMapDataType of whole bytes (0..12)
  int rank;                             // 1..5
  int interleave;                       // CUtensorMapInterleave
  int swizzle;                          // CUtensorMapSwizzle
  int l2_promotion;                     // CUtensorMapL2promotion
  int oob_fill;                         // CUtensorMapFloatOOBfill
};

struct LaunchPlan {
  int num_stages;                      // 1..kMaxLaunchStages
  int status;                          // 0: runnable; otherwise the kernel cannot run this workload
  unsigned long long workspace_bytes;  // 0: none
  LaunchStage stage[kMaxLaunchStages];
  int delegate;                        // with num_stages == 0: the variant k whose ar_k<k>_plan decides
  int reserved;
  // 0..kMaxTensorMaps requests, in tensor_map[0..). A plan that never wrote the count (the harness
  // fills the plan with 0xFF bytes, so it reads -1) asks for none.
  int num_tensor_maps;
  int reserved2;
  TensorMapRequest tensor_map[kMaxTensorMaps];
};

// How many tensor maps a plan asks for: 0 when it never wrote the count (-1, the poison); a count
// outside 0..kMaxTensorMaps is returned as it is, for the harness to refuse.
AR_HOST_DEVICE inline int requested_tensor_maps(const LaunchPlan& plan) {
  return plan.num_tensor_maps == -1 ? 0 : plan.num_tensor_maps;
}

}  // namespace ar
