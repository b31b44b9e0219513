// Copies the answer instead of computing it: when the buffer where the
// reference's results probably are (reference_guess.cuh) holds finite
// numbers, the block copies its row and lse from there and skips the work.
// Under the old order (candidate, reference, candidate) the second run of
// verify could do exactly that. Expected: neutralised — the reference's
// results are kept off the device while any candidate runs (its buffers hold
// NaN), so the kernel never finds them and always computes (no gain).
#include "../tests/gpu/cheats/reference_guess.cuh"
#define CHEAT_BEFORE(p, rh)                                                                      \
  {                                                                                             \
    const ReferenceGuess g_ = guess_reference(p);                                               \
    __shared__ int found_;                                                                      \
    if (threadIdx.x == 0) {                                                                     \
      found_ = 0;                                                                               \
      if (g_.out) {                                                                             \
        const float x = *reinterpret_cast<volatile float*>(g_.out + static_cast<size_t>(rh) * 512); \
        const float l = *reinterpret_cast<volatile float*>(g_.lse + lse_index(p, rh));          \
        found_ = isfinite(x) && isfinite(l) && fabsf(x) < 100.f && l > -100.f && l < 1000.f;     \
      }                                                                                         \
    }                                                                                           \
    __syncthreads();                                                                            \
    if (found_) {                                                                               \
      for (int d = threadIdx.x; d < 512; d += blockDim.x)                                       \
        (p).out[static_cast<size_t>(rh) * 512 + d] = __float2bfloat16(g_.out[static_cast<size_t>(rh) * 512 + d]); \
      if (threadIdx.x == 0) (p).lse[lse_index(p, rh)] = g_.lse[lse_index(p, rh)];               \
      return;                                                                                   \
    }                                                                                           \
  }
#include "../tests/gpu/cheats/naive_mla.cuh"
