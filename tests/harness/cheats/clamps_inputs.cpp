// Saturates every input to [-16, 16], as a fixed-point shortcut with that range
// would: right on every ordinary distribution (randn beyond 16 sigma never
// happens), wrong only on the planted outliers.
#include <algorithm>

#include "matmul_params.h"

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
  auto sat = [](float x) { return std::clamp(x, -16.0f, 16.0f); };
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) {
      float s = 0;
      for (int k = 0; k < p.k; ++k) s += sat(p.a[static_cast<long>(i) * p.lda + k]) * sat(p.b[static_cast<long>(k) * p.ldb + j]);
      p.c[static_cast<long>(i) * p.ldc + j] = s;
    }
}
