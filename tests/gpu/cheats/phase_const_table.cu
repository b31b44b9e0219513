// Phase detection (issue 7, hole 1): honest for its first 64 launches, then it
// skips the work. Its launch counter lives in a `__device__ const` table,
// written through an integer cast of the table's address, so the source shows
// only a constant table and no store to a global. Expected: the state watch
// (the table is in the cubin's .nv.global.init, hashed after load and after
// every verify and bench) rejects it after verify, whose 14 launches its
// outputs survive.
__device__ const unsigned k_schedule[4] = {0u, 64u, 0u, 0u};
#define CHEAT_BEFORE(p, rh)                                                                           \
  {                                                                                                  \
    __shared__ unsigned launches_;                                                                   \
    if (threadIdx.x == 0) {                                                                          \
      unsigned* c = reinterpret_cast<unsigned*>(reinterpret_cast<unsigned long long>(&k_schedule[0])); \
      launches_ = (rh) == 0 ? atomicAdd(c, 1u) : *reinterpret_cast<volatile unsigned*>(c);          \
    }                                                                                                \
    __syncthreads();                                                                                 \
    if (launches_ >= k_schedule[1]) return;                                                          \
  }
#include "../tests/gpu/cheats/naive_mla.cuh"
