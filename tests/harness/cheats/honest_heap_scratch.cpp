// Honest: packs each k-block of B into a heap buffer (std::vector) and frees
// it before returning. Allocating is not keeping state.
#include <algorithm>
#include <vector>

#include "matmul_params.h"

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
  constexpr int kBlock = 64;
  std::vector<float> panel(static_cast<size_t>(kBlock) * p.n);
  for (int i = 0; i < p.m; ++i) std::fill(p.c + static_cast<long>(i) * p.ldc, p.c + static_cast<long>(i) * p.ldc + p.n, 0.0f);
  for (int k0 = 0; k0 < p.k; k0 += kBlock) {
    const int kn = std::min(kBlock, p.k - k0);
    for (int kk = 0; kk < kn; ++kk)
      std::copy(p.b + static_cast<long>(k0 + kk) * p.ldb, p.b + static_cast<long>(k0 + kk) * p.ldb + p.n,
                panel.begin() + static_cast<long>(kk) * p.n);
    for (int i = 0; i < p.m; ++i) {
      float* c = p.c + static_cast<long>(i) * p.ldc;
      for (int kk = 0; kk < kn; ++kk) {
        const float a = p.a[static_cast<long>(i) * p.lda + k0 + kk];
        const float* b = panel.data() + static_cast<long>(kk) * p.n;
        for (int j = 0; j < p.n; ++j) c[j] += a * b[j];
      }
    }
  }
}
