// Leaves the last row of C unwritten: the NaN poison must show it.
#include "honest.h"

extern "C" void ar_kernel(const void* params) {
  MatmulParams p = *static_cast<const MatmulParams*>(params);
  if (p.m > 1) p.m -= 1;
  honest_kernel(&p);
}
