// A kernel with one tunable, MODE, that plants every way a candidate can fail,
// so one short run exercises each decision of the loop end to end:
//   0 plain i-j-k (the start)   1 does not compile   2 crashes (segfault)
//   3 hangs                     4 wrong result       5 really faster (i-k-j)
#include "matmul_params.h"

#ifndef MODE
#define MODE 0
#endif

#if MODE == 1
#error planted build failure
#endif

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
#if MODE == 2
  *reinterpret_cast<volatile int*>(16) = 1;
#elif MODE == 3
  for (volatile int spin = 1; spin;) {
  }
#endif
#if MODE == 5
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
#if MODE == 4
  p.c[0] += 1.0f;
#endif
}
