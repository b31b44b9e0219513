// Off by 0.1% everywhere: more than the tolerance allows.
#include "honest.h"

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
  honest_kernel(&p);
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) p.c[static_cast<long>(i) * p.ldc + j] *= 1.001f;
}
