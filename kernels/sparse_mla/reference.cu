// The independent GPU reference: plain fp32 loops, one block per (query row,
// head), no tensor cores, a two-pass softmax, and its own decoding of the
// cache (nothing shared with kernel.cu). Slow but simple; it is itself checked
// against the float64 oracle on sampled rows every time it is used.
#include <cuda_bf16.h>

#include "cuda/cuda_check.h"
#include "problem_parts.h"

namespace sparse_mla {

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

// e4m3: 1 sign, 4 exponent (bias 7), 3 mantissa bits; S.1111.111 is NaN.
__device__ float e4m3_to_float(unsigned char v) {
  const int e = (v >> 3) & 15, m = v & 7;
  if (e == 15 && m == 7) return __int_as_float(0x7fc00000);
  const float mag = e == 0 ? ldexpf(static_cast<float>(m), -9) : ldexpf(static_cast<float>(8 + m), e - 10);
  return (v & 0x80) ? -mag : mag;
}

__device__ float kv_at(const void* kv, int slot, int d, int fp8) {
  if (!fp8) return __bfloat162float(static_cast<const __nv_bfloat16*>(kv)[static_cast<size_t>(slot) * 576 + d]);
  const unsigned char* rec = static_cast<const unsigned char*>(kv) + static_cast<size_t>(slot) * 656;
  if (d < 512) return e4m3_to_float(rec[d]) * reinterpret_cast<const float*>(rec + 512)[d / 128];
  return __bfloat162float(reinterpret_cast<const __nv_bfloat16*>(rec + 528)[d - 512]);
}

template <typename Op>
__device__ float block_reduce(float v, float* scratch, Op op) {
  for (int off = 16; off > 0; off >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, off));
  if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
  __syncthreads();
  float r = scratch[0];
  for (int w = 1; w < kWarps; ++w) r = op(r, scratch[w]);
  __syncthreads();   // scratch is reused by the next reduction
  return r;
}

__global__ void __launch_bounds__(kThreads) reference_kernel(ReferenceArgs a) {
  extern __shared__ float sm[];
  float* score = sm;                 // [topk]
  float* qf = sm + a.topk;           // [576]
  float* scratch = qf + 576;         // [kWarps]
  const int rh = blockIdx.x;         // (b * s_q + i) * heads + h
  const int row = rh / a.heads, h = rh - row * a.heads;
  const int b = row / a.s_q, i = row - b * a.s_q;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int* idx = a.indices + static_cast<size_t>(row) * a.topk;
  const int n_eff = a.topk_length ? min(max(a.topk_length[b], 0), a.topk) : a.topk;
  auto valid = [&](int t, int slot) { return t < n_eff && slot >= 0 && slot < a.num_slots; };

  for (int d = threadIdx.x; d < 576; d += kThreads) qf[d] = __bfloat162float(a.q[static_cast<size_t>(rh) * 576 + d]);
  __syncthreads();

  // Pass 1: scores, one warp per position.
  for (int t = warp; t < a.topk; t += kWarps) {
    const int slot = idx[t];
    float acc = 0.f;
    if (valid(t, slot))
      for (int d = lane; d < 576; d += 32) acc += qf[d] * kv_at(a.kv, slot, d, a.fp8);
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (lane == 0) score[t] = valid(t, slot) ? acc * a.scale : -INFINITY;
  }
  __syncthreads();

  float m = -INFINITY;
  for (int t = threadIdx.x; t < a.topk; t += kThreads) m = fmaxf(m, score[t]);
  m = block_reduce(m, scratch, [](float x, float y) { return fmaxf(x, y); });
  float* out = a.out + static_cast<size_t>(rh) * 512;
  float* lse_out = a.lse + (static_cast<size_t>(b) * a.heads + h) * a.s_q + i;
  if (m == -INFINITY) {   // no valid position
    for (int d = threadIdx.x; d < 512; d += kThreads) out[d] = 0.f;
    if (threadIdx.x == 0) *lse_out = INFINITY;
    return;
  }

  // Pass 2: the normaliser, then p_t = exp(s_t - lse) in place.
  float sum = 0.f;
  for (int t = threadIdx.x; t < a.topk; t += kThreads) sum += expf(score[t] - m);
  sum = block_reduce(sum, scratch, [](float x, float y) { return x + y; });
  const float lse = m + logf(sum);
  for (int t = threadIdx.x; t < a.topk; t += kThreads) score[t] = expf(score[t] - lse);
  __syncthreads();

  // Pass 3: out = sum_t p_t V_t, one thread per output column.
  for (int d = threadIdx.x; d < 512; d += kThreads) {
    float acc = 0.f;
    for (int t = 0; t < n_eff; ++t) {
      const int slot = idx[t];
      if (valid(t, slot)) acc += score[t] * kv_at(a.kv, slot, d, a.fp8);
    }
    out[d] = acc;
  }
  if (threadIdx.x == 0) *lse_out = lse;
}

__global__ void gather_kernel(const unsigned char* kv, const int* idx, int num_slots, int record_bytes,
                              unsigned char* staging) {
  const int t = blockIdx.x;
  const int slot = idx[t];
  const bool ok = slot >= 0 && slot < num_slots;
  const int chunks = record_bytes / 16;
  uint4* dst = reinterpret_cast<uint4*>(staging + static_cast<size_t>(t) * record_bytes);
  const uint4* src = reinterpret_cast<const uint4*>(kv + (ok ? static_cast<size_t>(slot) * record_bytes : 0));
  for (int c = threadIdx.x; c < chunks; c += blockDim.x) dst[c] = ok ? src[c] : make_uint4(0u, 0u, 0u, 0u);
}

}  // namespace

void run_reference_kernel(const ReferenceArgs& a) {
  const size_t smem = (static_cast<size_t>(a.topk) + 576 + kWarps) * sizeof(float);
  AR_CUDA("problem_error",
          cudaFuncSetAttribute(reference_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  const long long blocks = static_cast<long long>(a.batch) * a.s_q * a.heads;
  reference_kernel<<<static_cast<unsigned>(blocks), kThreads, smem>>>(a);
  AR_CUDA("problem_error", cudaGetLastError());
}

void gather_records(const void* kv, const int* index_row, int topk, int num_slots, int record_bytes,
                    unsigned char* staging) {
  gather_kernel<<<topk, 64>>>(static_cast<const unsigned char*>(kv), index_row, num_slots, record_bytes, staging);
  AR_CUDA("problem_error", cudaGetLastError());
}

}  // namespace sparse_mla
