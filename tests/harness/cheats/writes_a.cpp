// Uses A's first element as scratch after the product: the input fingerprint
// must change.
#include "honest.h"

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
  honest_kernel(&p);
  const_cast<float*>(p.a)[0] = p.c[0];
}
