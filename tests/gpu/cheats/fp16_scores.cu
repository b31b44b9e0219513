// Precision downgrade: each lane accumulates its share of q . K in fp16
// (half the register traffic of fp32). Inside the tolerance where scores are
// small (randn: partial sums ~0.3); large scores lose whole units. Expected:
// caught by verify on the peaked distribution (lse off by ~0.1, the
// tolerance is 1.2e-4 relative) or scaled_up.
#include <cuda_fp16.h>
template <typename K>
__device__ inline float fp16_dot(K k, const float* qf, int lane) {
  __half acc = __float2half(0.f);
  for (int d = lane; d < 576; d += 32) acc = __hfma(__float2half(qf[d]), __float2half(k(d)), acc);
  return __half2float(acc);
}
#define CHEAT_DOT(p, qf, slot, lane) fp16_dot([&](int d_) { return naive::kv_at(p, slot, d_); }, qf, lane)
#include "../tests/gpu/cheats/naive_mla.cuh"
