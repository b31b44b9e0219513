// Precision downgrade: q and K rounded to e4m3 (fp8, 3 mantissa bits) before
// the score product, as an fp8 tensor-core path without per-block scales
// would. Expected: caught by verify (out's cosine check on randn data: each
// score is off by a few percent of its size).
#include <cuda_fp8.h>
template <typename K>
__device__ inline float fp8_dot(K k, const float* qf, int lane) {
  float acc = 0.f;
  for (int d = lane; d < 576; d += 32)
    acc += static_cast<float>(__nv_fp8_e4m3(qf[d])) * static_cast<float>(__nv_fp8_e4m3(k(d)));
  return acc;
}
#define CHEAT_DOT(p, qf, slot, lane) fp8_dot([&](int d_) { return naive::kv_at(p, slot, d_); }, qf, lane)
#include "../tests/gpu/cheats/naive_mla.cuh"
