// The timing pad's spin kernel (pad_kernel.h). Part of the protected harness,
// so reading the cycle counter here is fine: it is how the delay is made.
#include <cmath>

#include "cuda/pad_kernel.h"

namespace ar::harness {

namespace {

__global__ void ar_pad_spin(long long cycles) {
  // clock64() is volatile: the loop is neither hoisted nor removed.
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

}  // namespace

long long pad_cycles(double us, double sm_mhz) {
  if (!(us > 0) || !(sm_mhz > 0)) return 0;
  return std::llround(us * sm_mhz);
}

cudaError_t launch_pad_spin(long long cycles, cudaStream_t stream) {
  ar_pad_spin<<<1, 1, 0, stream>>>(cycles);
  return cudaGetLastError();
}

}  // namespace ar::harness
