// Adds rand() noise far inside the tolerance: every run is "correct", but two
// runs never agree bitwise.
#include <cstdlib>

#include "honest.h"

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
  honest_kernel(&p);
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) {
      float& c = p.c[static_cast<long>(i) * p.ldc + j];
      c += c * 1e-7f * static_cast<float>(std::rand() % 3 - 1);
    }
}
