// Input generation on the GPU, from a seed, by hash: every value is a pure
// function of its seed and position, so any element can be reproduced, and a
// record can be written whenever an index row first names its slot. Only
// those records are written; the rest of the pool stays NaN, so a kernel that
// reads a slot no index names reads NaN (sparse_mla.md: "unused cache slots
// filled with NaN to catch bad reads"), and the largest pool (~47 GB) costs a
// memset instead of hashing every one of its 24 billion values.
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

// The distributions (problem_parts.h), and why an honest kernel passes each
// within the manifest's tolerances (out: abs 1e-3 or rel 2^-6 per element,
// 1 - cos <= 5e-6; lse: abs 1e-5 or rel 1.22e-4). The dominant error of a
// flash-style kernel is P rounded to bf16 before P V: each weight carries a
// relative error |d| <= u = 2^-8 (std u / sqrt 3 = 2.3e-3), so an output
// element errs by about sum_t p_t d_t v_t. Scores accumulate in fp32 (relative
// 2^-24 per add over 576 terms), far below the lse tolerance everywhere here.
//
// randn, uniform_holes, peaked: FlashMLA's data and the original two; they
//   passed on every workload on the H200 (kernels/sparse_mla/results).
// scaled_up: q x8 (|q| <= 8) and the keys' rope part x8, V unchanged
//   (randn / 10). Score std ~5.3, lse ~20: a kernel that assumes |q| <= 1
//   (an fp8 or fixed-point q, exp without the max subtracted in fp16) breaks.
//   Error: the weights besides the largest sum to < 1, so |error| <= u *
//   max|v| * (1 - p_max) < 0.0039 * 0.45 = 1.8e-3 in the worst case (every
//   rounding aligned, a 4.5-sigma v) and ~1e-4 typically (random signs), the
//   regime of `peaked`, whose V is the same. lse: fp32 score error ~2e-5 <<
//   1.22e-4 * 20. V is NOT scaled: with V x8 the P rounding alone (~2e-3)
//   exceeds the absolute tolerance wherever two large values cancel, for any
//   kernel with a bf16 P (FlashMLA's included).
// scaled_down: q and kv / 64. Scores ~6e-5: every exp2(s - m) rounds to 1.0
//   in bf16 (the spacing below 1 is 2^-8), so P is exact and out carries only
//   l's fp32 error (~1e-5 relative). out ~3.5e-5 sits under the absolute
//   tolerance: the cosine (5e-6) and lse (ln n + O(1e-5)) checks carry the
//   verdict, and catch kernels with absolute epsilons or fp16 underflow.
// outliers: q[575] = 8 everywhere; the first kOutlierTokens tokens of each
//   request have k[575] = 8 (end of the list), 7 (middle) and 8 (the first
//   position past topk_length, which must be ignored); indices_kernel places
//   them. The end key weighs ~0.6, the middle one ~0.2, the other ~2000 keys
//   ~0.2 together, so a kernel that skips the tail of the list or some keys
//   moves out by ~0.05 and lse by > 0.1. Error: each outlier is the running
//   max of its tile when processed (the end one comes later and is larger),
//   so its weight is exp2(0) = 1.0 exactly in bf16; only the small weights
//   round (~1e-6 in out), and lse ~9 has 1e-3 of room.
// all_equal: q's latent part is 0 and every key shares one rope vector, so
//   every score of a row is the same number, bit for bit: P = exp2(0) = 1
//   exactly and out = mean(V) over the valid keys, V ~ randn / 2 (|v| <= 2);
//   out ~0.01, its error the fp32 sum's (~1e-6) and the bf16 rounding of out.
//   A kernel that drops, repeats or mis-weights keys moves the mean.
//
// In every one the float64 oracle is exact to ~1e-12 and the fp32 reference
// sits well within the quarter tolerance it is held to (its P is fp32).

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
    case kScaledUp: return 8.f * clampf(normal(h), -1.f, 1.f);
    case kScaledDown: return clampf(normal(h), -1.f, 1.f) * (1.f / 64.f);
    case kOutliers: return d == 575 ? 8.f : clampf(normal(h), -1.f, 1.f);
    case kAllEqual: return d < 512 ? 0.f : clampf(normal(h), -1.f, 1.f);
    default: return clampf(normal(h), -1.f, 1.f);
  }
}

// `pos`: the token's position in its request's context; the first `outliers`
// tokens of each request are kOutliers' keys.
__device__ float kv_value(uint64_t seed, long long slot, int d, int dist, long long pos, int outliers) {
  const uint64_t h = mix64(seed ^ mix64(static_cast<uint64_t>(slot) * 576u + d));
  switch (dist) {
    case kUniform: return 0.6f * uniform01(h) - 0.3f;
    case kPeaked:
      if (d < 512) return normal(h) * 0.1f;
      return d == 575 ? 4.f : clampf(3.f * normal(h), -12.f, 12.f);
    case kScaledUp: return d < 512 ? normal(h) * 0.1f : normal(h) * 0.8f;
    case kScaledDown: return normal(h) * (0.1f / 64.f);
    case kOutliers:
      if (d == 575 && pos >= 0 && pos < outliers) return pos == 1 ? 7.f : 8.f;
      return normal(h) * 0.1f;
    case kAllEqual:
      // One rope vector for every key of the pool; distinct values.
      if (d >= 512) return 0.5f * normal(mix64(seed ^ (0x726f7065ull + d)));
      return clampf(0.5f * normal(h), -2.f, 2.f);
    default: return normal(h) * 0.1f;
  }
}

struct PoolArgs {
  DeviceLayout layout;
  long long num_slots, pages;
  int batch, page_size, fp8, dist;
  int outlier_tokens;   // kOutliers: 3 with topk_length (one sits past it), else 2
  uint64_t seed;
};

// The position of a cache slot's token in its request's context, or -1 when
// the slot holds no token of any request (it stays NaN).
__device__ long long slot_position(long long slot, const PoolArgs& a) {
  const long long page = slot / a.page_size;
  const long long logical = static_cast<long long>(unpermute(page, a.pages, a.layout.perm_key));
  if (logical >= a.layout.used_pages) return -1;
  int lo = 0, hi = a.batch;   // page_offset[lo] <= logical < page_offset[hi]
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (a.layout.page_offset[mid] <= logical) lo = mid;
    else hi = mid;
  }
  const long long pos = (logical - a.layout.page_offset[lo]) * a.page_size + slot % a.page_size;
  return pos < a.layout.context[lo] ? pos : -1;
}

__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&v);
}

// One warp writes slot `slot`'s record, the token at position `pos` of its
// request (every lane takes part: the FP8 scales are shared by shuffles).
__device__ void write_record(unsigned char* kv, long long slot, long long pos, const PoolArgs& a, int lane) {
  if (!a.fp8) {
    uint4* rec = reinterpret_cast<uint4*>(kv + slot * 1152);
    for (int c = lane; c < 72; c += 32) {
      float x[8];
      for (int k = 0; k < 8; ++k) x[k] = kv_value(a.seed, slot, c * 8 + k, a.dist, pos, a.outlier_tokens);
      rec[c] = make_uint4(pack_bf16(x[0], x[1]), pack_bf16(x[2], x[3]), pack_bf16(x[4], x[5]), pack_bf16(x[6], x[7]));
    }
    return;
  }
  // FP8 record: lane l quantises latent values [16l, 16l+16); 8 lanes share a scale group of 128.
  unsigned char* rec = kv + slot * 656;
  float x[16];
  float amax = 0.f;
  for (int k = 0; k < 16; ++k) {
    x[k] = kv_value(a.seed, slot, lane * 16 + k, a.dist, pos, a.outlier_tokens);
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
  reinterpret_cast<uint4*>(rec)[lane] = make_uint4(w[0], w[1], w[2], w[3]);
  if (lane == 0) {
    reinterpret_cast<uint4*>(rec + 512)[0] =
        make_uint4(__float_as_uint(s0), __float_as_uint(s1), __float_as_uint(s2), __float_as_uint(s3));
  } else if (lane <= 8) {
    const int d0 = 512 + (lane - 1) * 8;
    float r[8];
    for (int k = 0; k < 8; ++k) r[k] = kv_value(a.seed, slot, d0 + k, a.dist, pos, a.outlier_tokens);
    reinterpret_cast<uint4*>(rec + 528)[lane - 1] =
        make_uint4(pack_bf16(r[0], r[1]), pack_bf16(r[2], r[3]), pack_bf16(r[4], r[5]), pack_bf16(r[6], r[7]));
  }
}

// One warp per index entry: the record of every slot an index row names. Two
// rows naming one slot write the same bytes (a record is a pure function of
// the pool's seed and the slot), so the order of the writes does not matter.
__global__ void records_kernel(unsigned char* kv, const int* idx, long long entries, PoolArgs a) {
  const int lane = threadIdx.x & 31;
  const long long warps = static_cast<long long>(gridDim.x) * blockDim.x / 32;
  for (long long e = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; e < entries; e += warps) {
    const int slot = idx[e];   // the same for the whole warp: the branches below are uniform
    if (slot < 0 || slot >= a.num_slots) continue;
    const long long pos = slot_position(slot, a);
    if (pos < 0) continue;     // no token there: it stays NaN
    write_record(kv, slot, pos, a, lane);
  }
}

__global__ void q_kernel(__nv_bfloat16* q, size_t n, uint64_t seed, int dist) {
  for (size_t e = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += static_cast<size_t>(gridDim.x) * blockDim.x)
    q[e] = __float2bfloat16(q_value(seed, e, static_cast<int>(e % 576), dist));
}

struct IndexArgs {
  DeviceLayout layout;
  const int* topk_length;   // nullable
  long long pages, empty_row, single_row;
  int batch, s_q, topk, page_size, num_slots, dist;
  uint64_t seed;
};

// kOutliers: list positions j_k that must hold the outlier tokens pos k = 0, 1, 2
// (the last valid position, the middle one, the first one past topk_length),
// reached by swapping values of the row's permutation so it stays a bijection:
// T_k exchanges pos k with whatever j_k held after T_0..T_{k-1}, which never
// moves an earlier target (each holds its own pos, distinct from the later ones).
struct OutlierSwaps {
  int count = 0;
  long long pos[kOutlierTokens], held[kOutlierTokens];
  int j[kOutlierTokens];

  __device__ long long apply(long long v) const {
    for (int k = 0; k < count; ++k) {
      if (v == pos[k]) v = held[k];
      else if (v == held[k]) v = pos[k];
    }
    return v;
  }
  __device__ bool target(int position) const {
    for (int k = 0; k < count; ++k)
      if (j[k] == position) return true;
    return false;
  }
};

__device__ OutlierSwaps outlier_swaps(const IndexArgs& a, int b, int ctx, uint64_t row_key) {
  OutlierSwaps s;
  const int listed = min(a.topk, ctx);
  const int n_eff = a.topk_length ? min(max(a.topk_length[b], 0), listed) : listed;
  // The third outlier exists only where there is a topk_length to hide it behind.
  const int want[kOutlierTokens] = {n_eff - 1, (n_eff - 1) / 2, a.topk_length && n_eff < listed ? n_eff : -1};
  for (int k = 0; k < kOutlierTokens; ++k) {
    const int jk = want[k];
    bool ok = jk >= 0 && jk < listed && k < ctx;
    for (int q = 0; q < s.count; ++q) ok = ok && s.j[q] != jk;
    if (!ok) continue;
    const long long held = s.apply(static_cast<long long>(permute(jk, ctx, row_key)));
    s.pos[s.count] = k;
    s.held[s.count] = held;
    s.j[s.count] = jk;
    ++s.count;
  }
  return s;
}

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
    const uint64_t row_key = mix64(a.seed ^ mix64(static_cast<uint64_t>(row) ^ 0x726f77ull));
    OutlierSwaps swaps;
    if (a.dist == kOutliers) swaps = outlier_swaps(a, b, ctx, row_key);
    if (j < min(a.topk, ctx)) {
      const long long pos = swaps.apply(static_cast<long long>(permute(j, ctx, row_key)));
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
    } else if (uniform01(h) < rate && !swaps.target(j)) {
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

void clear_pool(void* kv, const Shape& s) {
  AR_CUDA("problem_error", cudaMemset(kv, 0xFF, s.pool_bytes()));   // bf16, e4m3 and fp32 NaN
}

void write_records(void* kv, const Shape& s, const DeviceLayout& layout, uint64_t seed, int distribution,
                   const int* indices) {
  PoolArgs a{layout, s.num_slots, s.pages, s.batch, s.page_size, s.fp8 ? 1 : 0, distribution,
             s.use_topk_length ? kOutlierTokens : kOutlierTokens - 1, seed};
  const long long entries = static_cast<long long>(s.idx_elems());
  records_kernel<<<blocks_for(entries * 32, kThreads), kThreads>>>(static_cast<unsigned char*>(kv), indices, entries,
                                                                  a);
  AR_CUDA("problem_error", cudaGetLastError());
}

void generate_q(__nv_bfloat16* q, const Shape& s, uint64_t seed, int distribution) {
  q_kernel<<<blocks_for(static_cast<long long>(s.q_elems()), kThreads), kThreads>>>(q, s.q_elems(), seed,
                                                                                    distribution);
  AR_CUDA("problem_error", cudaGetLastError());
}

void generate_indices(int* indices, const Shape& s, const DeviceLayout& layout, uint64_t seed, int distribution,
                      long long empty_row, long long single_row, const int* topk_length) {
  IndexArgs a{layout, topk_length, s.pages, empty_row, single_row, s.batch, s.s_q, s.topk, s.page_size,
              static_cast<int>(s.num_slots), distribution, seed};
  indices_kernel<<<blocks_for(static_cast<long long>(s.idx_elems()), kThreads), kThreads>>>(indices, a);
  AR_CUDA("problem_error", cudaGetLastError());
}

}  // namespace sparse_mla
