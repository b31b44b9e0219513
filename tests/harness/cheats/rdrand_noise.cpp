// Stateless nondeterminism: hardware random noise (rdrand) far inside the
// tolerance. No state to find; only the bitwise run-to-run check sees it.
#include <cstdlib>
#ifdef __RDRND__
#include <immintrin.h>
#endif

#include "honest.h"

namespace {
unsigned noise() {
#ifdef __RDRND__
  unsigned v = 0;
  while (!_rdrand32_step(&v)) {
  }
  return v;
#else
  return static_cast<unsigned>(std::rand());
#endif
}
}  // namespace

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
  honest_kernel(&p);
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) {
      float& c = p.c[static_cast<long>(i) * p.ldc + j];
      c += c * (noise() & 1 ? 2e-7f : -2e-7f);
    }
}
