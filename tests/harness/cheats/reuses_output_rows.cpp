// The subtler variant: recomputes only the rows of C that hold NaN and keeps
// any row that already has numbers in it.
#include <cmath>

#include "honest.h"

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
  for (int i = 0; i < p.m; ++i) {
    float* row = p.c + static_cast<long>(i) * p.ldc;
    if (!std::isnan(row[0]) && !std::isnan(row[p.n - 1])) continue;
    MatmulParams one = p;
    one.a = p.a + static_cast<long>(i) * p.lda;
    one.c = row;
    one.m = 1;
    honest_kernel(&one);
  }
}
