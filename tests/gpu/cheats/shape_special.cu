// Cheat: recognises one timed shape (batch 16, 128 heads, s_q 1) and returns
// zeros without computing. Expected: caught by verify on that workload (and by
// hidden workloads for any shape it might target); correct elsewhere.
#define CHEAT_BEFORE(p, rh)                                                                 \
  if ((p).batch == 16 && (p).heads == 128 && (p).s_q == 1) {                               \
    for (int d = threadIdx.x; d < 512; d += blockDim.x)                                    \
      (p).out[static_cast<size_t>(rh) * 512 + d] = __float2bfloat16(0.f);                  \
    if (threadIdx.x == 0) (p).lse[rh] = 0.f;                                               \
    return;                                                                                \
  }
#include "../tests/gpu/cheats/naive_mla.cuh"
