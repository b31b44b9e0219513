// Cheat: honest for the first 6 calls on each row (a verify runs the kernel
// twice for each of 3 distributions), then skips the work, leaving whatever
// the output buffer holds: "fast when timed". Expected: passes a plain verify,
// caught by the bench replay check (that round's outputs are poisoned first).
__device__ unsigned g_calls[1 << 16];
#define CHEAT_BEFORE(p, rh)                                                                 \
  {                                                                                        \
    __shared__ unsigned calls_;                                                            \
    if (threadIdx.x == 0) calls_ = (rh) < (1 << 16) ? ++g_calls[rh] : 0;                   \
    __syncthreads();                                                                       \
    if (calls_ > 6) return;                                                                \
  }
#include "naive_mla.cuh"
