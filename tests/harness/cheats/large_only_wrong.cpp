// Drops the last k step when the problem is big (m*n*k >= 200^3): every small
// workload passes; only the largest one shows it.
#include "honest.h"

extern "C" void ar_kernel(const void* params) {
  MatmulParams p = *static_cast<const MatmulParams*>(params);
  if (static_cast<long long>(p.m) * p.n * p.k >= 200LL * 200 * 200 && p.k > 1) p.k -= 1;
  honest_kernel(&p);
}
