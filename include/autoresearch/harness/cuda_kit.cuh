#pragma once
// Shared helpers for a CUDA package's problem source, device side: a device
// buffer that names what it holds when it cannot be allocated, the poison
// fill, an order-aware fingerprint and the element-by-element comparison of a
// candidate tensor against a reference, both computed on the GPU (the tensors
// are too large to copy to the host per check). Each block reduces its share
// into its own partial and the host adds them in block order, so every figure
// is deterministic. Compiled by nvcc into the harness only (never into a
// candidate); the kernels sit in an unnamed namespace, so every source of a
// package may include this header. Generic parts of kernels/sparse_mla's
// compare.cu, made reusable.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "autoresearch/harness/element_check.h"
#include "autoresearch/harness/problem.h"
#include "cuda/cuda_check.h"

namespace ar::harness::kit {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = nullptr; o.bytes_ = 0; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) { reset(); ptr_ = o.ptr_; bytes_ = o.bytes_; o.ptr_ = nullptr; o.bytes_ = 0; }
    return *this;
  }
  ~DeviceBuffer() { reset(); }

  // Out of memory is the workload's problem (a ProblemError naming `what`);
  // a broken device is a fault.
  void allocate(size_t bytes, const char* what) {
    reset();
    if (bytes == 0) return;
    const cudaError_t e = cudaMalloc(&ptr_, bytes);
    if (e != cudaSuccess) {
      ptr_ = nullptr;
      if (is_sticky(e)) throw_cuda_error(e, "fault", "cudaMalloc", __FILE__, __LINE__);
      (void)cudaGetLastError();
      char text[200];
      std::snprintf(text, sizeof text, "cannot allocate %.3f GiB on the device for %s (%s)",
                    static_cast<double>(bytes) / (1u << 30), what, cudaGetErrorString(e));
      throw ProblemError(text);
    }
    bytes_ = bytes;
  }
  void reset() {
    if (ptr_) AR_CUDA_WARN(cudaFree(ptr_));
    ptr_ = nullptr;
    bytes_ = 0;
  }
  template <typename T>
  T* as() const { return static_cast<T*>(ptr_); }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

namespace {

constexpr int kKitThreads = 256;
constexpr int kKitBlocks = 1024;

__host__ __device__ inline uint64_t kit_mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

struct KitPartial {
  unsigned long long mismatches, nonfinite;
  long long first_bad;
  double max_abs, max_rel, dot, cand_sq, ref_sq;
};

__device__ __forceinline__ double kit_as_double(float x) { return x; }
__device__ __forceinline__ double kit_as_double(double x) { return x; }

template <typename C, typename R>
__global__ void __launch_bounds__(kKitThreads) kit_compare_kernel(const C* cand, const R* ref, size_t n,
                                                                  double abs_tol, double rel_tol, KitPartial* out) {
  KitPartial p{0, 0, -1, 0, 0, 0, 0, 0};
  for (size_t e = static_cast<size_t>(blockIdx.x) * kKitThreads + threadIdx.x; e < n;
       e += static_cast<size_t>(gridDim.x) * kKitThreads) {
    const double c = kit_as_double(cand[e]), r = kit_as_double(ref[e]);
    const ElementCheck k = check_element(c, r, abs_tol, rel_tol);
    if (!k.pass) {
      if (k.finite_pair) ++p.mismatches;
      else ++p.nonfinite;
      if (p.first_bad < 0) p.first_bad = static_cast<long long>(e);   // e grows per thread: its first is its least
    }
    if (!k.finite_pair) continue;
    p.max_abs = fmax(p.max_abs, k.abs_err);
    p.max_rel = fmax(p.max_rel, k.rel_err);
    p.dot += c * r;
    p.cand_sq += c * c;
    p.ref_sq += r * r;
  }
  __shared__ KitPartial all[kKitThreads];
  all[threadIdx.x] = p;
  __syncthreads();
  if (threadIdx.x != 0) return;
  KitPartial s{0, 0, -1, 0, 0, 0, 0, 0};
  for (int t = 0; t < kKitThreads; ++t) {   // fixed order: deterministic sums
    const KitPartial& q = all[t];
    s.mismatches += q.mismatches;
    s.nonfinite += q.nonfinite;
    if (q.first_bad >= 0 && (s.first_bad < 0 || q.first_bad < s.first_bad)) s.first_bad = q.first_bad;
    s.max_abs = fmax(s.max_abs, q.max_abs);
    s.max_rel = fmax(s.max_rel, q.max_rel);
    s.dot += q.dot;
    s.cand_sq += q.cand_sq;
    s.ref_sq += q.ref_sq;
  }
  out[blockIdx.x] = s;
}

__global__ void kit_fill_kernel(uint32_t* data, size_t words, uint32_t bits) {
  for (size_t e = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < words;
       e += static_cast<size_t>(gridDim.x) * blockDim.x)
    data[e] = bits;
}

// Order-aware: each 8-byte word is mixed with its position; the sum of the
// mixes does not depend on the order threads add them in.
__global__ void __launch_bounds__(kKitThreads) kit_hash_kernel(const unsigned char* data, size_t bytes, uint64_t salt,
                                                               unsigned long long* out) {
  const size_t words = bytes / 8;
  const uint64_t* w = reinterpret_cast<const uint64_t*>(data);
  uint64_t h1 = 0, h2 = 0;
  for (size_t e = static_cast<size_t>(blockIdx.x) * kKitThreads + threadIdx.x; e < words;
       e += static_cast<size_t>(gridDim.x) * kKitThreads) {
    h1 += kit_mix64(w[e] ^ kit_mix64(e ^ salt));
    h2 += kit_mix64(w[e] + 0x632BE59BD9B4E019ull * (e + 1) + salt);
  }
  if (blockIdx.x == 0 && threadIdx.x < bytes % 8) {   // a tail shorter than a word, byte by byte
    const uint64_t x = data[words * 8 + threadIdx.x];
    h1 += kit_mix64(x ^ kit_mix64((words * 8 + threadIdx.x) ^ salt ^ 0x7461696cull));
    h2 += kit_mix64(x + 0x1234567ull * (threadIdx.x + 1) + salt);
  }
  atomicAdd(&out[0], static_cast<unsigned long long>(h1));
  atomicAdd(&out[1], static_cast<unsigned long long>(h2));
}

// Small device scratch kept for the process (partials, hash words). Written
// right before it is read, so nothing a candidate left there counts.
inline void* kit_scratch(size_t bytes) {
  static void* buffer = nullptr;
  static size_t have = 0;
  if (have < bytes) {
    if (buffer) AR_CUDA_CHECK(cudaFree(buffer));
    buffer = nullptr;
    AR_CUDA("problem_error", cudaMalloc(&buffer, bytes));
    have = bytes;
  }
  return buffer;
}

unsigned kit_blocks_for(size_t items) {
  return static_cast<unsigned>(std::clamp<size_t>((items + kKitThreads - 1) / kKitThreads, 1, kKitBlocks));
}

}  // namespace

// Fills `bytes` (a multiple of 4) of device memory with a 32-bit pattern
// (kPoisonF32Bits for float outputs).
inline void fill_device(void* data, size_t bytes, uint32_t bits) {
  if (bytes == 0) return;
  kit_fill_kernel<<<kit_blocks_for(bytes / 4), kKitThreads>>>(static_cast<uint32_t*>(data), bytes / 4, bits);
  AR_CUDA("problem_error", cudaGetLastError());
}

// A 128-bit hash of a device buffer's bits, keyed with `salt`, as 32 hex digits.
inline std::string device_fingerprint(const void* data, size_t bytes, uint64_t salt) {
  auto* d = static_cast<unsigned long long*>(kit_scratch(2 * sizeof(unsigned long long)));
  AR_CUDA("problem_error", cudaMemset(d, 0, 2 * sizeof(unsigned long long)));
  kit_hash_kernel<<<kit_blocks_for(bytes / 8), kKitThreads>>>(static_cast<const unsigned char*>(data), bytes,
                                                              kit_mix64(salt), d);
  AR_CUDA("problem_error", cudaGetLastError());
  unsigned long long h[2];
  AR_CUDA("problem_error", cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  char text[40];
  std::snprintf(text, sizeof text, "%016llx%016llx", h[0], h[1]);
  return text;
}

// Every element of a candidate tensor (float) against the reference (float or
// double) on the device, into an OutputCheck named `output`; the first failing
// element is named by its flat index.
template <typename C, typename R>
OutputCheck compare_on_device(const std::string& output, const C* cand, const R* ref, size_t n, const Tolerance& tol) {
  auto* d = static_cast<KitPartial*>(kit_scratch(kKitBlocks * sizeof(KitPartial)));
  const unsigned blocks = kit_blocks_for(n);
  kit_compare_kernel<C, R><<<blocks, kKitThreads>>>(cand, ref, n, tol.abs, tol.rel, d);
  AR_CUDA("problem_error", cudaGetLastError());
  std::vector<KitPartial> h(blocks);
  AR_CUDA("problem_error", cudaMemcpy(h.data(), d, blocks * sizeof(KitPartial), cudaMemcpyDeviceToHost));
  OutputCheck oc;
  oc.output = output;
  oc.elements = static_cast<long long>(n);
  long long first_bad = -1;
  double dot = 0, cand_sq = 0, ref_sq = 0;
  for (const KitPartial& p : h) {
    oc.mismatches += static_cast<long long>(p.mismatches);
    oc.nonfinite += static_cast<long long>(p.nonfinite);
    if (p.first_bad >= 0 && (first_bad < 0 || p.first_bad < first_bad)) first_bad = p.first_bad;
    oc.max_abs_err = std::max(oc.max_abs_err, p.max_abs);
    oc.max_rel_err = std::max(oc.max_rel_err, p.max_rel);
    dot += p.dot;
    cand_sq += p.cand_sq;
    ref_sq += p.ref_sq;
  }
  if (cand_sq > 0 && ref_sq > 0) oc.cosine_diff = std::max(0.0, 1.0 - dot / std::sqrt(cand_sq * ref_sq));
  else oc.cosine_diff = cand_sq == ref_sq ? 0.0 : 1.0;
  if (first_bad >= 0) {
    C c;
    R r;
    AR_CUDA("problem_error", cudaMemcpy(&c, cand + first_bad, sizeof c, cudaMemcpyDeviceToHost));
    AR_CUDA("problem_error", cudaMemcpy(&r, ref + first_bad, sizeof r, cudaMemcpyDeviceToHost));
    char text[160];
    std::snprintf(text, sizeof text, "%s[%lld]=%.9g ref=%.9g", output.c_str(), first_bad, static_cast<double>(c),
                  static_cast<double>(r));
    oc.detail = text;
  }
  const bool cosine_ok = tol.cosine < 0 || oc.cosine_diff <= tol.cosine;
  if (!cosine_ok && oc.detail.empty()) {
    char text[120];
    std::snprintf(text, sizeof text, "1 - cos(%s, ref) = %.3g > %.3g", output.c_str(), oc.cosine_diff, tol.cosine);
    oc.detail = text;
  }
  oc.pass = oc.mismatches == 0 && oc.nonfinite == 0 && cosine_ok;
  return oc;
}

}  // namespace ar::harness::kit
