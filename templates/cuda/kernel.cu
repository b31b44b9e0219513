// The kernel (the file an agent edits): out = alpha * x + y in fp32.
//
// It is compiled to a cubin only and loaded by the protected harness
// (include/autoresearch/harness/launch_plan.h): ar_plan computes the launch on
// the device from the shapes in the params, ar_stage0 does the work. The build
// passes every tunable of manifest.json as a -D define (values in tunables.json):
//   THREADS  threads per block
// It must write every element of out (the harness fills it with NaN first) and
// work for every n the workloads and hidden ranges allow.
#include "autoresearch/harness/launch_plan.h"
#include "params.h"

#ifndef THREADS
#error "the build passes every tunable as -DNAME=value (see tunables.json)"
#endif

extern "C" __global__ void ar_plan(const KernelParams p, int num_sms, ar::LaunchPlan* plan) {
  const long long blocks = (p.n + THREADS - 1) / THREADS;
  const long long cap = static_cast<long long>(num_sms) * 32;   // a grid-stride loop covers the rest
  plan->num_stages = 1;
  plan->status = 0;
  plan->workspace_bytes = 0;
  ar::LaunchStage& s = plan->stage[0];
  s.grid[0] = static_cast<unsigned>(blocks < cap ? blocks : cap);
  s.grid[1] = s.grid[2] = 1;
  s.block[0] = THREADS;
  s.block[1] = s.block[2] = 1;
  s.shared_bytes = 0;
  s.reserved = 0;
}

extern "C" __global__ void __launch_bounds__(THREADS) ar_stage0(const KernelParams p) {
  const long long stride = static_cast<long long>(gridDim.x) * THREADS;
  for (long long i = static_cast<long long>(blockIdx.x) * THREADS + threadIdx.x; i < p.n; i += stride)
    p.out[i] = p.alpha * p.x[i] + p.y[i];
}
