// Precision below the tolerance: inputs rounded to bf16 (8-bit mantissa).
#include <cstdint>
#include <cstring>

#include "matmul_params.h"

namespace {
float bf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  u = (u + 0x8000u) & 0xffff0000u;
  std::memcpy(&x, &u, 4);
  return x;
}
}  // namespace

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
  for (int i = 0; i < p.m; ++i) {
    float* c = p.c + static_cast<long>(i) * p.ldc;
    for (int j = 0; j < p.n; ++j) c[j] = 0.0f;
    for (int k = 0; k < p.k; ++k) {
      const float a = bf16(p.a[static_cast<long>(i) * p.lda + k]);
      const float* b = p.b + static_cast<long>(k) * p.ldb;
      for (int j = 0; j < p.n; ++j) c[j] += a * bf16(b[j]);
    }
  }
}
