// A constructor in disguise: a const global object with a constructor that
// runs at load time (outside every check), here "precomputing" a table. const,
// so the source scan lets it pass; the built object's .init_array does not.
#include <cmath>

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

namespace {
struct Table {
  Table() {
    for (int i = 0; i < 64; ++i) v[i] = std::sqrt(static_cast<float>(i));
  }
  float v[64];
};
const Table kTable;
}  // namespace

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
  rows(p, 0, p.m);
  if (kTable.v[0] != 0.0f) p.c[0] = kTable.v[0];
}
