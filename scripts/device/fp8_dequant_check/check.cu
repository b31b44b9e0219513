// Idea 37's e4m3 -> bf16 conversion (dequant16: bits moved into a bf16, one bf16x2 multiply) against
// the float path it replaces (dequant16_by_float), bit for bit, on the GPU: every e4m3 byte but the
// two NaNs, times every power-of-two scale 2^-126 .. 2^10 and some that are not powers of two (those
// take the float path by design, so they must match too). Compiled against a package with idea 37
// applied (it defines both); prints the mismatches and exits 1 if there are any.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include "kernel.cu"

__global__ void compare_paths(const float* scales, int n_scales, unsigned* mismatches, unsigned* first_bad) {
  const int s = blockIdx.x;
  if (s >= n_scales) return;
  const float sc = scales[s];
  for (int chunk = threadIdx.x; chunk < 16; chunk += blockDim.x) {   // bytes 16 chunk .. 16 chunk + 15
    uint32_t w[4];
    for (int j = 0; j < 4; ++j) {
      uint32_t v = 0;
      for (int b = 0; b < 4; ++b) {
        uint32_t byte = 16u * chunk + 4u * j + b;
        if ((byte & 0x7Fu) == 0x7Fu) byte &= 0xFEu;   // e4m3 NaN: not a value a quantiser writes
        v |= byte << (8 * b);
      }
      w[j] = v;
    }
    const uint4 v = make_uint4(w[0], w[1], w[2], w[3]);
    uint4 a_lo, a_hi, b_lo, b_hi;
    dequant16(v, sc, a_lo, a_hi);
    dequant16_by_float(v, sc, b_lo, b_hi);
    const uint32_t a[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
    const uint32_t b[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
    for (int k = 0; k < 8; ++k)
      for (int h = 0; h < 2; ++h) {
        const uint32_t x = (a[k] >> (16 * h)) & 0xFFFFu, y = (b[k] >> (16 * h)) & 0xFFFFu;
        const bool both_nan = (x & 0x7FFFu) > 0x7F80u && (y & 0x7FFFu) > 0x7F80u;
        if (x != y && !both_nan) {
          if (atomicAdd(mismatches + s, 1u) == 0u) first_bad[s] = (static_cast<uint32_t>(chunk * 16 + 2 * k + h) << 16) | x;
        }
      }
  }
}

int main() {
  std::vector<float> scales;
  for (int k = -126; k <= 10; ++k) scales.push_back(std::ldexp(1.f, k));
  for (float f : {0.f, 1e-4f, 3.7e-3f, 0.3f, 1.5f, 448.f / 3.f, -0.25f, NAN}) scales.push_back(f);
  const int n = static_cast<int>(scales.size());
  float* d_scales;
  unsigned *d_bad, *d_first;
  cudaMalloc(&d_scales, n * sizeof(float));
  cudaMalloc(&d_bad, n * sizeof(unsigned));
  cudaMalloc(&d_first, n * sizeof(unsigned));
  cudaMemcpy(d_scales, scales.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(d_bad, 0, n * sizeof(unsigned));
  compare_paths<<<n, 32>>>(d_scales, n, d_bad, d_first);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("launch failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 2;
  }
  std::vector<unsigned> bad(n), first(n);
  cudaMemcpy(bad.data(), d_bad, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  cudaMemcpy(first.data(), d_first, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  unsigned total = 0;
  for (int s = 0; s < n; ++s) {
    total += bad[s];
    if (bad[s])
      std::printf("scale %g: %u of 256 values differ (first: value %u, bits 0x%04x)\n", scales[s], bad[s],
                  first[s] >> 16, first[s] & 0xFFFFu);
  }
  std::printf("%u mismatches over %d scales x 256 e4m3 bytes (NaN bytes excluded)\n", total, n);
  return total ? 1 : 0;
}
