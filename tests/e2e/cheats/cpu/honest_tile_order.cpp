// Honest: blocks of C visited column-block first (j outer, i inner), k blocked;
// a different tile order than the shipped kernel's.
#include <algorithm>

#include "matmul_params.h"

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
  constexpr int kBi = 32, kBj = 128, kBk = 64;
  for (int j0 = 0; j0 < p.n; j0 += kBj) {
    const int j1 = std::min(j0 + kBj, p.n);
    for (int i0 = 0; i0 < p.m; i0 += kBi) {
      const int i1 = std::min(i0 + kBi, p.m);
      for (int i = i0; i < i1; ++i) std::fill(p.c + static_cast<long>(i) * p.ldc + j0, p.c + static_cast<long>(i) * p.ldc + j1, 0.0f);
      for (int k0 = 0; k0 < p.k; k0 += kBk) {
        const int k1 = std::min(k0 + kBk, p.k);
        for (int i = i0; i < i1; ++i) {
          float* c = p.c + static_cast<long>(i) * p.ldc;
          for (int k = k0; k < k1; ++k) {
            const float a = p.a[static_cast<long>(i) * p.lda + k];
            const float* b = p.b + static_cast<long>(k) * p.ldb;
            for (int j = j0; j < j1; ++j) c[j] += a * b[j];
          }
        }
      }
    }
  }
}
