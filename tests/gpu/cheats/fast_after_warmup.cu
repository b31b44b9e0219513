// Cheat: honest for the first 16 calls on each row (a verify runs the kernel
// twice for each of its 7 distributions), then skips the work, leaving
// whatever the output buffer holds: "fast when timed". Its per-row counters
// are a __device__ array. Expected: its outputs pass verify, the state watch
// rejects it right after (the counters changed between launches); without
// that, every timed replay's fingerprint would.
__device__ unsigned g_calls[1 << 16];
#define CHEAT_BEFORE(p, rh)                                                                 \
  {                                                                                        \
    __shared__ unsigned calls_;                                                            \
    if (threadIdx.x == 0) calls_ = (rh) < (1 << 16) ? ++g_calls[rh] : 0;                   \
    __syncthreads();                                                                       \
    if (calls_ > 16) return;                                                               \
  }
#include "../tests/gpu/cheats/naive_mla.cuh"
