// The kernel (the file an agent edits): out = alpha * x + y in fp32, on one core.
//
// The build passes every tunable of manifest.json as a -D define (the values
// come from tunables.json):
//   UNROLL  elements per inner-loop step
// It must write every element of out (the harness fills it with NaN first),
// work for every n the workloads and hidden ranges allow, and use one thread.
#include "params.h"

#ifndef UNROLL
#error "the build passes every tunable as -DNAME=value (see tunables.json)"
#endif

extern "C" void ar_kernel(const void* params) {
  const KernelParams& p = *static_cast<const KernelParams*>(params);
  long long i = 0;
  for (; i + UNROLL <= p.n; i += UNROLL)
    for (int u = 0; u < UNROLL; ++u) p.out[i + u] = p.alpha * p.x[i + u] + p.y[i + u];
  for (; i < p.n; ++i) p.out[i] = p.alpha * p.x[i] + p.y[i];
}
