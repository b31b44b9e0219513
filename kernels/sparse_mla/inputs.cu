// Input generation on the GPU, from a seed, by hash (every value is a pure
// function of its seed and position, so the largest pool, ~47 GB, fills in
// tens of milliseconds and any element can be reproduced).
#include <cuda_fp8.h>

#include <climits>

#include "cuda/cuda_check.h"
#include "problem_parts.h"

namespace sparse_mla {

namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 132 * 32;

__device__ __forceinline__ float uniform01(uint64_t h) {
  return static_cast<float>(h >> 40) * 0x1.0p-24f;   // [0, 1)
}

__device__ __forceinline__ float normal(uint64_t h) {
  const float u1 = (static_cast<float>(h >> 40) + 0.5f) * 0x1.0p-24f;
  const float u2 = static_cast<float>(h & 0xFFFFFFu) * 0x1.0p-24f;
  return sqrtf(-2.f * logf(u1)) * cospif(2.f * u2);
}

__device__ __forceinline__ float clampf(float x, float lo, float hi) { return fminf(fmaxf(x, lo), hi); }

// q[..., d]: see Distribution. The peaked distribution puts large values in the
// rope part (and +20 in its last dimension, against +4 in every key), so scores
// reach ~60-90: the online softmax must subtract its running max.
__device__ float q_value(uint64_t seed, size_t e, int d, int dist) {
  const uint64_t h = mix64(seed ^ mix64(e ^ 0x71ull));
  switch (dist) {
    case kUniform: return 2.f * uniform01(h) - 1.f;
    case kPeaked:
      if (d < 512) return clampf(normal(h), -1.f, 1.f);
      return d == 575 ? 20.f : clampf(6.f * normal(h), -20.f, 20.f);
    default: return clampf(normal(h), -1.f, 1.f);
  }
}

__device__ float kv_value(uint64_t seed, long long slot, int d, int dist) {
  const uint64_t h = mix64(seed ^ mix64(static_cast<uint64_t>(slot) * 576u + d));
  switch (dist) {
    case kUniform: return 0.6f * uniform01(h) - 0.3f;
    case kPeaked:
      if (d < 512) return normal(h) * 0.1f;
      return d == 575 ? 4.f : clampf(3.f * normal(h), -12.f, 12.f);
    default: return normal(h) * 0.1f;
  }
}

struct PoolArgs {
  DeviceLayout layout;
  long long num_slots, pages;
  int batch, page_size, fp8, dist;
  uint64_t seed;
};

// Whether a cache slot holds a token of some request (else it stays NaN).
__device__ bool slot_used(long long slot, const PoolArgs& a) {
  const long long page = slot / a.page_size;
  const long long logical = static_cast<long long>(unpermute(page, a.pages, a.layout.perm_key));
  if (logical >= a.layout.used_pages) return false;
  int lo = 0, hi = a.batch;   // page_offset[lo] <= logical < page_offset[hi]
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (a.layout.page_offset[mid] <= logical) lo = mid;
    else hi = mid;
  }
  const long long pos = (logical - a.layout.page_offset[lo]) * a.page_size + slot % a.page_size;
  return pos < a.layout.context[lo];
}

__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&v);
}

// One warp per slot. NaN (all bytes 0xFF: bf16 NaN, e4m3 NaN, fp32 NaN) where unused.
__global__ void pool_kernel(unsigned char* kv, PoolArgs a) {
  const int lane = threadIdx.x & 31;
  const long long warps = static_cast<long long>(gridDim.x) * blockDim.x / 32;
  const uint4 nan4 = make_uint4(~0u, ~0u, ~0u, ~0u);
  for (long long slot = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; slot < a.num_slots;
       slot += warps) {
    const bool used = slot_used(slot, a);
    if (!a.fp8) {
      uint4* rec = reinterpret_cast<uint4*>(kv + slot * 1152);
      for (int c = lane; c < 72; c += 32) {
        uint4 v = nan4;
        if (used) {
          float x[8];
          for (int k = 0; k < 8; ++k) x[k] = kv_value(a.seed, slot, c * 8 + k, a.dist);
          v = make_uint4(pack_bf16(x[0], x[1]), pack_bf16(x[2], x[3]), pack_bf16(x[4], x[5]), pack_bf16(x[6], x[7]));
        }
        rec[c] = v;
      }
      continue;
    }
    // FP8 record: lane l quantises latent values [16l, 16l+16); 8 lanes share a scale group of 128.
    unsigned char* rec = kv + slot * 656;
    float x[16];
    float amax = 0.f;
    for (int k = 0; k < 16; ++k) {
      x[k] = used ? kv_value(a.seed, slot, lane * 16 + k, a.dist) : 0.f;
      amax = fmaxf(amax, fabsf(x[k]));
    }
    for (int off = 1; off < 8; off <<= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, off));
    const float scale = exp2f(ceilf(log2f(fmaxf(amax / 448.f, 1e-4f))));
    uint32_t w[4];
    for (int k = 0; k < 4; ++k) {
      w[k] = 0;
      for (int j = 0; j < 4; ++j) {
        const uint32_t byte = __nv_cvt_float_to_fp8(x[4 * k + j] / scale, __NV_SATFINITE, __NV_E4M3);
        w[k] |= byte << (8 * j);
      }
    }
    const float s0 = __shfl_sync(0xffffffffu, scale, 0), s1 = __shfl_sync(0xffffffffu, scale, 8);
    const float s2 = __shfl_sync(0xffffffffu, scale, 16), s3 = __shfl_sync(0xffffffffu, scale, 24);
    reinterpret_cast<uint4*>(rec)[lane] = used ? make_uint4(w[0], w[1], w[2], w[3]) : nan4;
    if (lane == 0) {
      reinterpret_cast<uint4*>(rec + 512)[0] =
          used ? make_uint4(__float_as_uint(s0), __float_as_uint(s1), __float_as_uint(s2), __float_as_uint(s3)) : nan4;
    } else if (lane <= 8) {
      const int d0 = 512 + (lane - 1) * 8;
      uint4 v = nan4;
      if (used) {
        float r[8];
        for (int k = 0; k < 8; ++k) r[k] = kv_value(a.seed, slot, d0 + k, a.dist);
        v = make_uint4(pack_bf16(r[0], r[1]), pack_bf16(r[2], r[3]), pack_bf16(r[4], r[5]), pack_bf16(r[6], r[7]));
      }
      reinterpret_cast<uint4*>(rec + 528)[lane - 1] = v;
    }
  }
}

__global__ void q_kernel(__nv_bfloat16* q, size_t n, uint64_t seed, int dist) {
  for (size_t e = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += static_cast<size_t>(gridDim.x) * blockDim.x)
    q[e] = __float2bfloat16(q_value(seed, e, static_cast<int>(e % 576), dist));
}

struct IndexArgs {
  DeviceLayout layout;
  long long pages, empty_row, single_row;
  int batch, s_q, topk, page_size, num_slots, dist;
  uint64_t seed;
};

// Invalid entries of every kind a kernel must reject (uniform_holes), else -1.
__device__ int invalid_index(uint64_t h, int dist, int num_slots) {
  if (dist != kUniform) return -1;
  switch ((h >> 8) % 8) {
    case 3: return -2;
    case 4: return INT_MIN;
    case 5: return num_slots;
    case 6: return static_cast<long long>(num_slots) + 4097 > INT_MAX ? INT_MAX : num_slots + 4097;
    case 7: return INT_MAX;
    default: return -1;
  }
}

// Row (b, i) takes min(topk, context_b) distinct positions of request b, in a
// random order (a keyed permutation of [0, context_b)), then -1 padding.
__global__ void indices_kernel(int* idx, IndexArgs a) {
  const long long total = static_cast<long long>(a.batch) * a.s_q * a.topk;
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long row = e / a.topk;
    const int j = static_cast<int>(e - row * a.topk);
    const int b = static_cast<int>(row / a.s_q);
    const int ctx = a.layout.context[b];
    int v = -1;
    if (j < min(a.topk, ctx)) {
      const uint64_t row_key = mix64(a.seed ^ mix64(static_cast<uint64_t>(row) ^ 0x726f77ull));
      const long long pos = static_cast<long long>(permute(j, ctx, row_key));
      const long long logical = a.layout.page_offset[b] + pos / a.page_size;
      const long long page = static_cast<long long>(permute(logical, a.pages, a.layout.perm_key));
      v = static_cast<int>(page * a.page_size + pos % a.page_size);
    }
    const uint64_t h = mix64(a.seed ^ mix64(static_cast<uint64_t>(e) ^ 0x686f6c65ull));
    const float rate = a.dist == kUniform ? 0.05f : a.dist == kPeaked ? 0.005f : 0.01f;
    if (row == a.single_row) {
      if (j != 0) v = -1;
    } else if (row == a.empty_row) {
      v = invalid_index(h, a.dist, a.num_slots);
    } else if (uniform01(h) < rate) {
      v = invalid_index(h, a.dist, a.num_slots);
    }
    idx[e] = v;
  }
}

unsigned blocks_for(long long work, int per_block) {
  const long long b = (work + per_block - 1) / per_block;
  return static_cast<unsigned>(b < 1 ? 1 : b > kMaxBlocks ? kMaxBlocks : b);
}

}  // namespace

void generate_pool(void* kv, const Shape& s, const DeviceLayout& layout, uint64_t seed, int distribution) {
  PoolArgs a{layout, s.num_slots, s.pages, s.batch, s.page_size, s.fp8 ? 1 : 0, distribution, seed};
  pool_kernel<<<blocks_for(s.num_slots * 32, kThreads), kThreads>>>(static_cast<unsigned char*>(kv), a);
  AR_CUDA("problem_error", cudaGetLastError());
}

void generate_q(__nv_bfloat16* q, const Shape& s, uint64_t seed, int distribution) {
  q_kernel<<<blocks_for(static_cast<long long>(s.q_elems()), kThreads), kThreads>>>(q, s.q_elems(), seed,
                                                                                    distribution);
  AR_CUDA("problem_error", cudaGetLastError());
}

void generate_indices(int* indices, const Shape& s, const DeviceLayout& layout, uint64_t seed, int distribution,
                      long long empty_row, long long single_row) {
  IndexArgs a{layout, s.pages, empty_row, single_row, s.batch, s.s_q, s.topk, s.page_size,
              static_cast<int>(s.num_slots), distribution, seed};
  indices_kernel<<<blocks_for(static_cast<long long>(s.idx_elems()), kThreads), kThreads>>>(indices, a);
  AR_CUDA("problem_error", cudaGetLastError());
}

}  // namespace sparse_mla
