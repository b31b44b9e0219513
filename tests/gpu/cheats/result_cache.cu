// Cheat: keeps each row's result in a __device__ buffer and serves it on later
// calls without recomputing. Expected: verify's next distribution gets a stale
// answer, and the state watch sees the buffers change (either rejects it).
#include <cuda_bf16.h>
__device__ __nv_bfloat16 g_cached_out[1 << 22];   // rows of up to 8192 (b, i, h)
__device__ float g_cached_lse[1 << 13];
__device__ int g_cached[1 << 13];
#define CHEAT_BEFORE(p, rh)                                                                 \
  if ((rh) < (1 << 13) && g_cached[rh]) {                                                  \
    for (int d = threadIdx.x; d < 512; d += blockDim.x)                                    \
      (p).out[static_cast<size_t>(rh) * 512 + d] = g_cached_out[static_cast<size_t>(rh) * 512 + d]; \
    if (threadIdx.x == 0) {                                                                \
      const int row_ = (rh) / (p).heads, h_ = (rh) % (p).heads;                            \
      (p).lse[(static_cast<size_t>(row_ / (p).s_q) * (p).heads + h_) * (p).s_q + row_ % (p).s_q] = g_cached_lse[rh]; \
    }                                                                                      \
    return;                                                                                \
  }
#define CHEAT_AFTER(p, rh, out, lse)                                                        \
  if ((rh) < (1 << 13)) {                                                                  \
    __syncthreads();                                                                       \
    for (int d = threadIdx.x; d < 512; d += blockDim.x) g_cached_out[static_cast<size_t>(rh) * 512 + d] = (out)[d]; \
    if (threadIdx.x == 0) { g_cached_lse[rh] = (lse); __threadfence(); g_cached[rh] = 1; } \
  }
#include "../tests/gpu/cheats/naive_mla.cuh"
