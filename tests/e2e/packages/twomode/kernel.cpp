// MODE 0: the textbook i-j-k loop (the start); MODE 1: i-k-j, which streams
// rows of b and c and is several times faster. One candidate, one keep.
#include "matmul_params.h"

#ifndef MODE
#define MODE 0
#endif

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
#if MODE == 1
  for (int i = 0; i < p.m; ++i) {
    float* c = p.c + static_cast<long>(i) * p.ldc;
    for (int j = 0; j < p.n; ++j) c[j] = 0;
    for (int k = 0; k < p.k; ++k) {
      float a = p.a[static_cast<long>(i) * p.lda + k];
      const float* b = p.b + static_cast<long>(k) * p.ldb;
      for (int j = 0; j < p.n; ++j) c[j] += a * b[j];
    }
  }
#else
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) {
      float s = 0;
      for (int k = 0; k < p.k; ++k) s += p.a[static_cast<long>(i) * p.lda + k] * p.b[static_cast<long>(k) * p.ldb + j];
      p.c[static_cast<long>(i) * p.ldc + j] = s;
    }
#endif
}
