// The time-stamp counter through inline assembly.
#include <cstdint>

#include "matmul_params.h"

namespace {

// The honest part: i-k-j row updates (the inner loop over j vectorises).
void rows(const MatmulParams& p, int i0, int i1) {
  for (int i = i0; i < i1; ++i) {
    float* c = p.c + static_cast<long>(i) * p.ldc;
    const float* a = p.a + static_cast<long>(i) * p.lda;
    for (int j = 0; j < p.n; ++j) c[j] = 0.0f;
    for (int k = 0; k < p.k; ++k) {
      const float av = a[k];
      const float* b = p.b + static_cast<long>(k) * p.ldb;
      for (int j = 0; j < p.n; ++j) c[j] += av * b[j];
    }
  }
}

}  // namespace

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
  uint32_t lo, hi;
  asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
  rows(p, 0, p.m);
  if (lo == 0 && hi == 0) p.c[0] = 0;
}
