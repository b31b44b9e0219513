// Sums over k forwards on odd calls and backwards on even ones: each run is
// within tolerance, but the bits depend on the call.
#include "matmul_params.h"

extern "C" void ar_kernel(const void* params) {
  static unsigned calls = 0;
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
  const bool backwards = (++calls % 2) == 0;
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) {
      float s = 0;
      for (int t = 0; t < p.k; ++t) {
        const int k = backwards ? p.k - 1 - t : t;
        s += p.a[static_cast<long>(i) * p.lda + k] * p.b[static_cast<long>(k) * p.ldb + j];
      }
      p.c[static_cast<long>(i) * p.ldc + j] = s;
    }
}
