// Phase detection, a second spelling: the launch counter is a plain __device__
// global whose name only exists after token pasting (a scan for the name
// finds nothing). Honest for 64 launches, then skips the work. Expected: the
// state watch finds `g_stage0_launches` in the cubin's symbol table and
// rejects it after verify.
#define LAUNCH_COUNTER(stage) g_##stage##_launches
__device__ unsigned LAUNCH_COUNTER(stage0);
#define CHEAT_BEFORE(p, rh)                                                                   \
  {                                                                                          \
    __shared__ unsigned launches_;                                                           \
    if (threadIdx.x == 0)                                                                    \
      launches_ = (rh) == 0 ? atomicAdd(&LAUNCH_COUNTER(stage0), 1u)                         \
                            : *reinterpret_cast<volatile unsigned*>(&LAUNCH_COUNTER(stage0)); \
    __syncthreads();                                                                         \
    if (launches_ >= 64) return;                                                             \
  }
#include "../tests/gpu/cheats/naive_mla.cuh"
