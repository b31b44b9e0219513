// Comparisons and fingerprints on the GPU: the tensors are too large to copy
// to the host on every check. Each block reduces its share and writes one
// partial; the host adds the partials in block order, so every figure is
// deterministic.
#include <cuda_bf16.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "autoresearch/harness/problem.h"
#include "cuda/cuda_check.h"
#include "problem_parts.h"

namespace sparse_mla {

namespace {

using ar::harness::ProblemError;

constexpr int kThreads = 256;
constexpr int kBlocks = 1024;

struct Partial {
  unsigned long long mismatches, nonfinite;
  long long first_bad;
  double max_abs, max_rel, dot, norm;
};

__device__ __forceinline__ float as_float(float x) { return x; }
__device__ __forceinline__ float as_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T>
__global__ void __launch_bounds__(kThreads) compare_kernel(const T* cand, const float* ref, size_t n,
                                                           double abs_tol, double rel_tol, Partial* out) {
  Partial p{0, 0, -1, 0, 0, 0, 0};
  for (size_t e = static_cast<size_t>(blockIdx.x) * kThreads + threadIdx.x; e < n;
       e += static_cast<size_t>(kBlocks) * kThreads) {
    const double c = as_float(cand[e]), r = ref[e];
    const ElementCheck k = check_element(c, r, abs_tol, rel_tol);
    if (!k.pass) {
      if (k.finite_pair) ++p.mismatches;
      else ++p.nonfinite;
      if (p.first_bad < 0) p.first_bad = static_cast<long long>(e);   // e grows per thread: the first is the least
    }
    if (!k.finite_pair) continue;   // excluded from the error and cosine figures
    p.max_abs = fmax(p.max_abs, k.abs_err);
    p.max_rel = fmax(p.max_rel, k.rel_err);
    p.dot += c * r;
    p.norm += c * c + r * r;
  }

  __shared__ Partial all[kThreads];
  all[threadIdx.x] = p;
  __syncthreads();
  if (threadIdx.x != 0) return;
  Partial s{0, 0, -1, 0, 0, 0, 0};
  for (int t = 0; t < kThreads; ++t) {   // fixed order: deterministic sums
    const Partial& q = all[t];
    s.mismatches += q.mismatches;
    s.nonfinite += q.nonfinite;
    if (q.first_bad >= 0 && (s.first_bad < 0 || q.first_bad < s.first_bad)) s.first_bad = q.first_bad;
    s.max_abs = fmax(s.max_abs, q.max_abs);
    s.max_rel = fmax(s.max_rel, q.max_rel);
    s.dot += q.dot;
    s.norm += q.norm;
  }
  out[blockIdx.x] = s;
}

// Order-aware: each 8-byte word is mixed with its position; the sum of the
// mixes is independent of the order threads add them in. Buffer blockIdx.y of
// the list; two words of `out` per buffer.
constexpr int kMaxHashed = 8;
struct HashList {
  const unsigned char* data[kMaxHashed];
  unsigned long long bytes[kMaxHashed];
};

struct HashSums {
  uint64_t h1 = 0, h2 = 0;
  __device__ void add(uint64_t x, size_t e, uint64_t salt) {
    h1 += mix64(x ^ mix64(e ^ salt));
    h2 += mix64(x + 0x632BE59BD9B4E019ull * (e + 1) + salt);
  }
};

__device__ __forceinline__ uint64_t word(uint32_t lo, uint32_t hi) { return lo | (static_cast<uint64_t>(hi) << 32); }

// Words are read 4 at a time, as two 16-byte loads, where the buffer is
// 16-byte aligned: one 8-byte load per thread keeps too few bytes in flight to
// reach the memory's bandwidth, and the pool is the largest buffer hashed (three
// times per distribution of every verification). The sums are the same.
__global__ void __launch_bounds__(kThreads) hash_kernel(HashList list, uint64_t salt, unsigned long long* out) {
  const unsigned char* data = list.data[blockIdx.y];
  const size_t bytes = list.bytes[blockIdx.y];
  salt = mix64(salt ^ (0x6275666672ull + blockIdx.y));
  const size_t words = bytes / 8;
  const size_t stride = static_cast<size_t>(gridDim.x) * kThreads;
  const size_t first = static_cast<size_t>(blockIdx.x) * kThreads + threadIdx.x;
  const size_t groups = reinterpret_cast<uintptr_t>(data) % 16 == 0 ? words / 4 : 0;
  const uint4* v = reinterpret_cast<const uint4*>(data);
  const uint64_t* w = reinterpret_cast<const uint64_t*>(data);
  HashSums h;
  for (size_t g = first; g < groups; g += stride) {
    const uint4 a = v[2 * g], b = v[2 * g + 1];
    h.add(word(a.x, a.y), 4 * g, salt);
    h.add(word(a.z, a.w), 4 * g + 1, salt);
    h.add(word(b.x, b.y), 4 * g + 2, salt);
    h.add(word(b.z, b.w), 4 * g + 3, salt);
  }
  for (size_t e = groups * 4 + first; e < words; e += stride) h.add(w[e], e, salt);
  uint64_t h1 = h.h1, h2 = h.h2;
  if (blockIdx.x == 0 && threadIdx.x < bytes % 8) {   // a tail shorter than a word, byte by byte
    const uint64_t x = data[words * 8 + threadIdx.x];
    h1 += mix64(x ^ mix64((words * 8 + threadIdx.x) ^ salt ^ 0x7461696cull));
    h2 += mix64(x + 0x1234567ull * (threadIdx.x + 1) + salt);
  }
  for (int off = 16; off > 0; off >>= 1) {
    h1 += __shfl_xor_sync(0xffffffffu, h1, off);
    h2 += __shfl_xor_sync(0xffffffffu, h2, off);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&out[2 * blockIdx.y], static_cast<unsigned long long>(h1));
    atomicAdd(&out[2 * blockIdx.y + 1], static_cast<unsigned long long>(h2));
  }
}

// A small device buffer kept for the process (partials, hash words).
template <typename T>
T* scratch(size_t count) {
  static void* buffer = nullptr;
  static size_t have = 0;
  if (have < count * sizeof(T)) {
    if (buffer) AR_CUDA_CHECK(cudaFree(buffer));
    buffer = nullptr;
    AR_CUDA("problem_error", cudaMalloc(&buffer, count * sizeof(T)));
    have = count * sizeof(T);
  }
  return static_cast<T*>(buffer);
}

// Every block writes its own partial (never adds to what the memory held) and
// the host reads them right after the launch, so the counts are the
// comparison's own, whatever a candidate wrote there before.
template <typename T>
CompareStats compare(const T* cand, const float* ref, size_t n, double abs_tol, double rel_tol) {
  Partial* d = scratch<Partial>(kBlocks);
  compare_kernel<T><<<kBlocks, kThreads>>>(cand, ref, n, abs_tol, rel_tol, d);
  AR_CUDA("problem_error", cudaGetLastError());
  std::vector<Partial> h(kBlocks);
  AR_CUDA("problem_error", cudaMemcpy(h.data(), d, kBlocks * sizeof(Partial), cudaMemcpyDeviceToHost));
  CompareStats s;
  s.elements = static_cast<long long>(n);
  for (const Partial& p : h) {
    s.mismatches += static_cast<long long>(p.mismatches);
    s.nonfinite += static_cast<long long>(p.nonfinite);
    if (p.first_bad >= 0 && (s.first_bad < 0 || p.first_bad < s.first_bad)) s.first_bad = p.first_bad;
    s.max_abs = std::max(s.max_abs, p.max_abs);
    s.max_rel = std::max(s.max_rel, p.max_rel);
    s.dot += p.dot;
    s.norm += p.norm;
  }
  return s;
}

}  // namespace

CompareStats compare_bf16(const __nv_bfloat16* cand, const float* ref, size_t n, double abs_tol, double rel_tol) {
  return compare(cand, ref, n, abs_tol, rel_tol);
}

CompareStats compare_f32(const float* cand, const float* ref, size_t n, double abs_tol, double rel_tol) {
  return compare(cand, ref, n, abs_tol, rel_tol);
}

// The sums are written into scratch zeroed right before the launch and copied
// to the host right after it, with no other kernel in between: nothing a
// candidate launched earlier can reach them.
std::string fingerprint(const std::vector<HashedBuffer>& buffers, uint64_t salt) {
  if (buffers.empty() || buffers.size() > kMaxHashed) throw ProblemError("fingerprint: 1 to 8 buffers");
  HashList list{};
  size_t largest = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    list.data[i] = static_cast<const unsigned char*>(buffers[i].data);
    list.bytes[i] = buffers[i].bytes;
    largest = std::max(largest, buffers[i].bytes);
  }
  unsigned long long* d = scratch<unsigned long long>(2 * kMaxHashed);
  AR_CUDA("problem_error", cudaMemset(d, 0, 2 * buffers.size() * sizeof(unsigned long long)));
  // Small buffers (the per-sample outputs of a small workload) need few blocks.
  const unsigned blocks = static_cast<unsigned>(std::clamp<size_t>((largest / 8 + kThreads - 1) / kThreads, 1, kBlocks));
  hash_kernel<<<dim3(blocks, static_cast<unsigned>(buffers.size())), kThreads>>>(list, salt, d);
  AR_CUDA("problem_error", cudaGetLastError());
  std::vector<unsigned long long> h(2 * buffers.size());
  AR_CUDA("problem_error", cudaMemcpy(h.data(), d, h.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  std::string text;
  for (size_t i = 0; i < buffers.size(); ++i) {
    char part[40];
    std::snprintf(part, sizeof part, "%s%016llx%016llx", i ? ":" : "", h[2 * i], h[2 * i + 1]);
    text += part;
  }
  return text;
}

}  // namespace sparse_mla
