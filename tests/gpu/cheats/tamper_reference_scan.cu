// Verdict tampering, a second way to find the target: instead of guessing the
// reference's address from the allocation order, block 0 scans the rest of
// lse's 2 MiB chunk (mapped memory, 256-byte steps) for the first kilobyte
// that holds nothing but 0xFF — a buffer poisoned with NaN, most likely the
// hidden reference — and writes its own (cheap, wrong: half the keys) answer
// there. Expected: the verdict guard when the scan hits the reference's
// buffers, else the comparison.
#include <stdint.h>

#include "sparse_mla_params.h"
#define CHEAT_KEYS(p, n_eff) ((n_eff) / 2)
__device__ inline float* find_poisoned_kilobyte(const SparseMlaParams& p) {
  const uintptr_t lse_end = reinterpret_cast<uintptr_t>(p.lse + static_cast<size_t>(p.batch) * p.s_q * p.heads);
  const uintptr_t chunk_end = (reinterpret_cast<uintptr_t>(p.lse) | ((uintptr_t{2} << 20) - 1)) + 1;
  for (uintptr_t a = (lse_end + 255) & ~uintptr_t{255}; a + 1024 <= chunk_end; a += 256) {
    const volatile unsigned* w = reinterpret_cast<const volatile unsigned*>(a);
    bool all = true;
    for (int i = 0; i < 256 && all; ++i) all = w[i] == 0xFFFFFFFFu;
    if (all) return reinterpret_cast<float*>(a);
  }
  return nullptr;
}
#define CHEAT_AFTER(p, rh, out, lse)                                                          \
  if ((rh) == 0) {                                                                           \
    __shared__ float* target_;                                                               \
    __syncthreads();                                                                         \
    if (threadIdx.x == 0) target_ = find_poisoned_kilobyte(p);                               \
    __syncthreads();                                                                         \
    if (target_)                                                                             \
      for (int d = threadIdx.x; d < 256; d += blockDim.x) target_[d] = __bfloat162float((out)[d]); \
  }
#include "../tests/gpu/cheats/naive_mla.cuh"
