// The state hasher (state_hash.h): part of the protected harness.
#include <cstdint>
#include <cstdio>
#include <random>

#include "common/device.h"
#include "cuda/cuda_check.h"
#include "cuda/state_hash.h"

namespace ar::harness {

namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerRegion = 256;

struct Region {
  const unsigned char* data;
  unsigned long long bytes;
};

__host__ __device__ inline uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Word w (4 bytes, or one tail byte) at position e contributes to both sums;
// the sums do not depend on the order threads add them in.
__host__ __device__ inline void add_word(uint64_t w, uint64_t e, uint64_t key, uint64_t& h1, uint64_t& h2) {
  h1 += mix(w ^ mix(e ^ key));
  h2 += mix(w + 0x632BE59BD9B4E019ull * (e + 1) + (key >> 7));
}

__global__ void __launch_bounds__(kThreads) hash_regions_kernel(const Region* regions, uint64_t key,
                                                                unsigned long long* sums) {
  const Region reg = regions[blockIdx.y];
  const uint64_t k = key ^ (0xA5A5A5A5ull * (blockIdx.y + 1));
  uint64_t h1 = 0, h2 = 0;
  const bool aligned = (reinterpret_cast<uintptr_t>(reg.data) & 3) == 0;
  const unsigned long long words = aligned ? reg.bytes / 4 : 0;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * kThreads;
  const unsigned long long first = static_cast<unsigned long long>(blockIdx.x) * kThreads + threadIdx.x;
  const uint32_t* w = reinterpret_cast<const uint32_t*>(reg.data);
  for (unsigned long long e = first; e < words; e += stride) add_word(w[e], e, k, h1, h2);
  for (unsigned long long b = words * 4 + first; b < reg.bytes; b += stride)   // unaligned data, or the tail
    add_word(reg.data[b], b ^ 0x7461696C00000000ull, k, h1, h2);
  for (int off = 16; off > 0; off >>= 1) {
    h1 += __shfl_xor_sync(0xffffffffu, h1, off);
    h2 += __shfl_xor_sync(0xffffffffu, h2, off);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&sums[2 * blockIdx.y], static_cast<unsigned long long>(h1));
    atomicAdd(&sums[2 * blockIdx.y + 1], static_cast<unsigned long long>(h2));
  }
}

std::string hex(uint64_t a, uint64_t b) {
  char text[40];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return text;
}

uint64_t secret() {
  std::random_device entropy;
  return (static_cast<uint64_t>(entropy()) << 32) ^ entropy();
}

}  // namespace

StateHasher::StateHasher() : key_(secret()) {}

StateHasher::~StateHasher() {
  if (regions_) AR_CUDA_WARN(cudaFree(regions_));
  if (sums_) AR_CUDA_WARN(cudaFree(sums_));
}

std::vector<std::string> StateHasher::device(const std::vector<HashRegion>& regions, cudaStream_t stream) {
  std::vector<std::string> out;
  if (regions.empty()) return out;
  if (regions.size() > 65535) throw HarnessError("load_error", "a cubin with more than 65535 variables");
  if (regions.size() > capacity_) {
    if (regions_) AR_CUDA_CHECK(cudaFree(regions_));
    if (sums_) AR_CUDA_CHECK(cudaFree(sums_));
    regions_ = sums_ = nullptr;
    capacity_ = 0;
    AR_CUDA_CHECK(cudaMalloc(&regions_, regions.size() * sizeof(Region)));
    AR_CUDA_CHECK(cudaMalloc(&sums_, regions.size() * 2 * sizeof(unsigned long long)));
    capacity_ = regions.size();
  }
  std::vector<Region> list;
  for (const auto& r : regions) list.push_back(Region{reinterpret_cast<const unsigned char*>(r.data), r.bytes});
  AR_CUDA_CHECK(cudaMemcpyAsync(regions_, list.data(), list.size() * sizeof(Region), cudaMemcpyHostToDevice, stream));
  AR_CUDA_CHECK(cudaMemsetAsync(sums_, 0, list.size() * 2 * sizeof(unsigned long long), stream));
  const dim3 grid(kBlocksPerRegion, static_cast<unsigned>(list.size()));
  hash_regions_kernel<<<grid, kThreads, 0, stream>>>(static_cast<const Region*>(regions_), key_,
                                                      static_cast<unsigned long long*>(sums_));
  AR_CUDA_CHECK(cudaGetLastError());
  std::vector<unsigned long long> sums(list.size() * 2);
  AR_CUDA_CHECK(cudaMemcpyAsync(sums.data(), sums_, sums.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                stream));
  AR_CUDA_CHECK(cudaStreamSynchronize(stream));
  for (size_t i = 0; i < list.size(); ++i) out.push_back(hex(sums[2 * i], sums[2 * i + 1]));
  return out;
}

std::string StateHasher::copied(const HashRegion& region) {
  std::vector<unsigned char> bytes(region.bytes);
  if (!bytes.empty()) AR_CU_CHECK(cuMemcpyDtoH(bytes.data(), region.data, bytes.size()));
  uint64_t h1 = 0, h2 = 0;
  const uint64_t k = key_ ^ 0xC0C0C0C0ull;
  for (size_t b = 0; b < bytes.size(); ++b) add_word(bytes[b], b, k, h1, h2);
  return hex(h1, h2);
}

}  // namespace ar::harness
