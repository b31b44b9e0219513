// Doubles B in place and halves the result: C is exactly right (powers of two),
// but the inputs were written.
#include "honest.h"

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
  float* b = const_cast<float*>(p.b);
  for (int k = 0; k < p.k; ++k)
    for (int j = 0; j < p.n; ++j) b[static_cast<long>(k) * p.ldb + j] *= 2.0f;
  honest_kernel(&p);
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) p.c[static_cast<long>(i) * p.ldc + j] *= 0.5f;
}
