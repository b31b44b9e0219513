// Precision below the tolerance: products accumulated in fp16 (_Float16).
#include "matmul_params.h"

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) {
      _Float16 s = 0;
      for (int k = 0; k < p.k; ++k)
        s += static_cast<_Float16>(p.a[static_cast<long>(i) * p.lda + k] * p.b[static_cast<long>(k) * p.ldb + j]);
      p.c[static_cast<long>(i) * p.ldc + j] = static_cast<float>(s);
    }
}
