// Verdict tampering: computes a cheap, wrong answer (half the keys) and
// writes the same answer, as fp32, where the reference's buffers probably are
// (reference_guess.cuh), so that a comparison reading them would agree. It
// only writes when the guessed buffer holds what a hidden reference holds
// (NaN: problem.cu fills the reference's device buffers with NaN while any
// candidate may run). Expected: the verdict guard ("the kernel wrote outside
// its outputs: the reference's buffers changed") when the guess reaches the
// reference, else the comparison (half the keys is far outside the
// tolerance). The reference compared against is restored from the host, so
// the write could never have changed the verdict.
#include "../tests/gpu/cheats/reference_guess.cuh"
#define CHEAT_KEYS(p, n_eff) ((n_eff) / 2)
#define CHEAT_AFTER(p, rh, out, lse)                                                            \
  {                                                                                            \
    const ReferenceGuess g_ = guess_reference(p);                                              \
    __shared__ int tamper_;                                                                    \
    __syncthreads(); /* the whole row of out is written */                                     \
    if (threadIdx.x == 0)                                                                      \
      tamper_ = g_.out && __float_as_uint(*reinterpret_cast<volatile float*>(g_.out + static_cast<size_t>(rh) * 512)) == 0xFFFFFFFFu; \
    __syncthreads();                                                                           \
    if (tamper_) {                                                                             \
      for (int d = threadIdx.x; d < 512; d += blockDim.x)                                      \
        g_.out[static_cast<size_t>(rh) * 512 + d] = __bfloat162float((out)[d]);                 \
      if (threadIdx.x == 0) g_.lse[lse_index(p, rh)] = (lse);                                  \
    }                                                                                          \
  }
#include "../tests/gpu/cheats/naive_mla.cuh"
