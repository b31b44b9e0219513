// Rounds every input to bf16 (8-bit mantissa) before multiplying: the classic
// precision downgrade, about 0.4% error per product.
#include <cstdint>
#include <cstring>

#include "matmul_params.h"

namespace {
float to_bf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  u = (u + 0x8000u) & 0xffff0000u;
  std::memcpy(&x, &u, sizeof u);
  return x;
}
}  // namespace

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) {
      float s = 0;
      for (int k = 0; k < p.k; ++k)
        s += to_bf16(p.a[static_cast<long>(i) * p.lda + k]) * to_bf16(p.b[static_cast<long>(k) * p.ldb + j]);
      p.c[static_cast<long>(i) * p.ldc + j] = s;
    }
}
