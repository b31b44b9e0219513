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

__device__ float bf16_bits_to_float(uint32_t bits) { return __uint_as_float(bits << 16); }

// Dimensions [8c, 8c + 8) of a slot's 576, c < 72, from one 16-byte load (BF16
// rows; FP8 rope) or one 8-byte load and the group's scale (FP8 latent): a
// lane's whole share of a row in a few wide loads, where one 2-byte load per
// dimension spent most of the reference's time issuing loads.
__device__ void chunk8(const void* kv, int slot, int c, int fp8, float v[8]) {
  const unsigned char* base = static_cast<const unsigned char*>(kv);
  if (!fp8 || c >= 64) {
    const unsigned char* at = fp8 ? base + static_cast<size_t>(slot) * 656 + 528 + (c - 64) * 16
                                  : base + static_cast<size_t>(slot) * 1152 + c * 16;
    const uint4 w = *reinterpret_cast<const uint4*>(at);
    const uint32_t words[4] = {w.x, w.y, w.z, w.w};
    for (int k = 0; k < 4; ++k) {
      v[2 * k] = bf16_bits_to_float(words[k] & 0xFFFFu);
      v[2 * k + 1] = bf16_bits_to_float(words[k] >> 16);
    }
    return;
  }
  const unsigned char* rec = base + static_cast<size_t>(slot) * 656;
  const uint2 w = *reinterpret_cast<const uint2*>(rec + c * 8);
  const float scale = reinterpret_cast<const float*>(rec + 512)[c / 16];
  for (int k = 0; k < 8; ++k) {
    const uint32_t word = k < 4 ? w.x : w.y;
    v[k] = e4m3_to_float(static_cast<unsigned char>(word >> (8 * (k % 4)))) * scale;
  }
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
  float* qf = sm;                    // [576], first: 16-byte aligned for the float4 reads
  float* score = qf + 576;           // [topk]
  float* scratch = score + a.topk;   // [kWarps]
  float* partial = scratch + kWarps; // [kWarps][512]: each warp's share of out
  int* slots = reinterpret_cast<int*>(partial + kWarps * 512);   // [topk]: the slot, -1 where not valid
  const int rh = blockIdx.x;         // (b * s_q + i) * heads + h
  const int row = rh / a.heads, h = rh - row * a.heads;
  const int b = row / a.s_q, i = row - b * a.s_q;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int* idx = a.indices + static_cast<size_t>(row) * a.topk;
  const int n_eff = a.topk_length ? min(max(a.topk_length[b], 0), a.topk) : a.topk;
  auto valid = [&](int t, int slot) { return t < n_eff && slot >= 0 && slot < a.num_slots; };

  for (int d = threadIdx.x; d < 576; d += kThreads) qf[d] = __bfloat162float(a.q[static_cast<size_t>(rh) * 576 + d]);
  __syncthreads();

  // Pass 1: scores, one warp per position. BF16: lane l takes dimensions l,
  // l + 32, ... (2-byte loads side by side). FP8: lane l takes the chunks of
  // eight dimensions l, l + 32, l + 64 (< 72), decoded from 8-byte loads,
  // which made the FP8 reference a quarter faster and the BF16 one slower
  // (scripts/device/reference_speed: the H200's figures for each variant).
  const __nv_bfloat16* rows = static_cast<const __nv_bfloat16*>(a.kv);
  for (int t = warp; t < a.topk; t += kWarps) {
    const int slot = idx[t];
    float acc = 0.f;
    if (valid(t, slot) && !a.fp8) {
      for (int d = lane; d < 576; d += 32) acc += qf[d] * __bfloat162float(rows[static_cast<size_t>(slot) * 576 + d]);
    } else if (valid(t, slot)) {
      for (int c = lane; c < 72; c += 32) {
        float v[8];
        chunk8(a.kv, slot, c, a.fp8, v);
        // q as two float4s: lanes 8 floats apart would hit one bank 8 ways.
        const float4 q0 = reinterpret_cast<const float4*>(qf)[2 * c];
        const float4 q1 = reinterpret_cast<const float4*>(qf)[2 * c + 1];
        acc += q0.x * v[0] + q0.y * v[1] + q0.z * v[2] + q0.w * v[3] + q1.x * v[4] + q1.y * v[5] + q1.z * v[6] +
               q1.w * v[7];
      }
    }
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (lane == 0) {
      score[t] = valid(t, slot) ? acc * a.scale : -INFINITY;
      slots[t] = valid(t, slot) ? slot : -1;
    }
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

  // Pass 3: out = sum_t p_t V_t. Warp w takes positions w, w + kWarps, ...
  // and lane l the columns [16l, 16l + 16), two chunks of a row, so a warp
  // reads whole rows (one thread per column walking all positions was most
  // of the reference's time). The warps' sums are added in warp order: the
  // result is deterministic.
  float acc[16];
  for (int j = 0; j < 16; ++j) acc[j] = 0.f;
  for (int t = warp; t < a.topk; t += kWarps) {
    const int slot = slots[t];   // the same for the whole warp
    if (slot < 0) continue;
    const float p = score[t];
    float v[16];
    chunk8(a.kv, slot, 2 * lane, a.fp8, v);
    chunk8(a.kv, slot, 2 * lane + 1, a.fp8, v + 8);
    for (int j = 0; j < 16; ++j) acc[j] += p * v[j];
  }
  for (int j = 0; j < 16; ++j) partial[warp * 512 + 16 * lane + j] = acc[j];
  __syncthreads();
  for (int d = threadIdx.x; d < 512; d += kThreads) {
    float sum = 0.f;
    for (int w = 0; w < kWarps; ++w) sum += partial[w * 512 + d];
    out[d] = sum;
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
  const size_t smem = (static_cast<size_t>(a.topk) + 576 + kWarps + kWarps * 512) * sizeof(float) +
                      static_cast<size_t>(a.topk) * sizeof(int);
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
