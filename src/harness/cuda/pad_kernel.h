#pragma once
// The bench request's "pad" on CUDA (PROTOCOL.md): a one-thread kernel that
// spins for a given number of SM cycles. It is captured into a slot's graph
// after the candidate's stages, so the delay lies inside the timed region and
// the other slot is truly faster by a known amount.
#include <cuda_runtime_api.h>

namespace ar::harness {

// SM cycles for `us` microseconds at `sm_mhz`: round(us * sm_mhz).
long long pad_cycles(double us, double sm_mhz);

// Launches the spin kernel <<<1, 1>>> on the stream (capturable); 0 cycles is
// a kernel that returns at once (the pad's fixed cost without the spin).
cudaError_t launch_pad_spin(long long cycles, cudaStream_t stream);

}  // namespace ar::harness
