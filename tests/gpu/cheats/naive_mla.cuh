#pragma once
// A slow, honest sparse_mla candidate (one block per query row and head, plain
// fp32 loops) that each planted cheat in this folder bends in one way, through
// the hooks below. honest.cu uses it unchanged and must pass, so a cheat that
// is caught is caught for its cheat, not for the naive kernel under it.
//
// Every file in this folder is a whole kernel.cu: copied over
// kernels/sparse_mla/kernel.cu it builds as a candidate (the driver passes
// -I<home>/include, through which "../tests/gpu/cheats/naive_mla.cuh" is
// found; nothing but kernel.cu has to be written).
//
// Hooks (define before including; the defaults do nothing):
//   CHEAT_BEFORE(p, rh)          at block start; may `return` (skip the work)
//   CHEAT_OUT(p, rh, d, v)       the value written to out[rh, d] (a float expression)
//   CHEAT_WRITE_OUT(p, rh, d)    whether out[rh, d] is written at all
//   CHEAT_AFTER(p, rh, out, lse) after the block wrote its row (out: bf16* in global memory, lse: float)
//   CHEAT_KEYS(p, n_eff)         how many of the valid positions are used (skipping the tail)
//   CHEAT_DOT(p, qf, slot, lane) this lane's share of q . K_slot (default: fp32 over d = lane, lane + 32, ...)
//   CHEAT_PLAN(p, pl)            after the plan is filled (e.g. to ask for a workspace)
// NAIVE_NO_ENTRY: only the helpers (namespace naive), for kernels with their own entry points.
#include <cuda_bf16.h>

#include "autoresearch/harness/launch_plan.h"
#include "sparse_mla_params.h"

#ifndef CHEAT_BEFORE
#define CHEAT_BEFORE(p, rh)
#endif
#ifndef CHEAT_OUT
#define CHEAT_OUT(p, rh, d, v) (v)
#endif
#ifndef CHEAT_WRITE_OUT
#define CHEAT_WRITE_OUT(p, rh, d) true
#endif
#ifndef CHEAT_AFTER
#define CHEAT_AFTER(p, rh, out, lse)
#endif
#ifndef CHEAT_KEYS
#define CHEAT_KEYS(p, n_eff) (n_eff)
#endif
#ifndef CHEAT_DOT
#define CHEAT_DOT(p, qf, slot, lane) naive::dot_lane(p, qf, slot, lane)
#endif
#ifndef CHEAT_PLAN
#define CHEAT_PLAN(p, pl)
#endif

namespace naive {
constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;

// Value d of a KV record (576 bf16 values, or an FP8 record: 512 e4m3 bytes, 4 fp32 scales, 64 bf16 rope
// values) wherever it lies: the cache itself, or a copy of the record in shared memory.
__device__ inline float decode_record(const unsigned char* rec, bool fp8, int d) {
  if (!fp8) return __bfloat162float(reinterpret_cast<const __nv_bfloat16*>(rec)[d]);
  if (d >= 512) return __bfloat162float(reinterpret_cast<const __nv_bfloat16*>(rec + 528)[d - 512]);
  const unsigned char v = rec[d];
  const int e = (v >> 3) & 15, m = v & 7;
  const float mag = e == 0 ? ldexpf(static_cast<float>(m), -9) : ldexpf(static_cast<float>(8 + m), e - 10);
  return ((v & 0x80) ? -mag : mag) * reinterpret_cast<const float*>(rec + 512)[d / 128];
}

__device__ inline float kv_at(const SparseMlaParams& p, int slot, int d) {
  const size_t record_bytes = p.kv_fp8 ? 656 : 1152;
  return decode_record(static_cast<const unsigned char*>(p.kv) + static_cast<size_t>(slot) * record_bytes,
                       p.kv_fp8 != 0, d);
}

__device__ inline float dot_lane(const SparseMlaParams& p, const float* qf, int slot, int lane) {
  float acc = 0.f;
  for (int d = lane; d < 576; d += 32) acc += qf[d] * kv_at(p, slot, d);
  return acc;
}

__device__ inline float block_max(float v, float* scratch) {
  for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
  if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
  __syncthreads();
  float r = scratch[0];
  for (int w = 1; w < kWarps; ++w) r = fmaxf(r, scratch[w]);
  __syncthreads();
  return r;
}

__device__ inline float block_sum(float v, float* scratch) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
  __syncthreads();
  float r = scratch[0];
  for (int w = 1; w < kWarps; ++w) r += scratch[w];
  __syncthreads();
  return r;
}

// The row's log-sum-exp over its scores (-INFINITY where a key is not used); INFINITY when no key is.
__device__ inline float row_lse(const float* score, int topk, float* scratch) {
  float m = -INFINITY;
  for (int t = threadIdx.x; t < topk; t += kThreads) m = fmaxf(m, score[t]);
  m = block_max(m, scratch);
  if (m == -INFINITY) return INFINITY;
  float sum = 0.f;
  for (int t = threadIdx.x; t < topk; t += kThreads) sum += expf(score[t] - m);
  return m + logf(block_sum(sum, scratch));
}

// Value column d of the row's output: its keys' values weighted by their probabilities exp(score - lse).
__device__ inline float pv_at(const SparseMlaParams& p, const int* idx, int n_eff, const float* score, float lse,
                              int d) {
  float acc = 0.f;
  if (lse != INFINITY)
    for (int t = 0; t < n_eff; ++t) {
      const int slot = idx[t];
      if (slot >= 0 && slot < p.num_slots) acc += expf(score[t] - lse) * kv_at(p, slot, d);
    }
  return acc;
}
}  // namespace naive

#ifndef NAIVE_NO_ENTRY
extern "C" __global__ void ar_plan(const SparseMlaParams p, int num_sms, ar::LaunchPlan* plan) {
  ar::LaunchPlan pl = {};
  pl.num_stages = 1;
  pl.stage[0].grid[0] = static_cast<unsigned>(p.batch * p.s_q * p.heads);
  pl.stage[0].grid[1] = pl.stage[0].grid[2] = 1;
  pl.stage[0].block[0] = naive::kThreads;
  pl.stage[0].block[1] = pl.stage[0].block[2] = 1;
  pl.stage[0].shared_bytes = static_cast<unsigned>((p.topk + 576 + naive::kWarps) * sizeof(float));
  CHEAT_PLAN(p, pl);
  *plan = pl;
}

extern "C" __global__ void __launch_bounds__(naive::kThreads) ar_stage0(const SparseMlaParams p) {
  extern __shared__ float sm[];
  float* score = sm;
  float* qf = sm + p.topk;
  float* scratch = qf + 576;
  const int rh = blockIdx.x;
  CHEAT_BEFORE(p, rh);
  const int row = rh / p.heads, h = rh - row * p.heads;
  const int b = row / p.s_q, i = row - b * p.s_q;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int* idx = p.indices + static_cast<size_t>(row) * p.topk;
  const int n_eff_all = p.topk_length ? min(max(p.topk_length[b], 0), p.topk) : p.topk;
  const int n_eff = CHEAT_KEYS(p, n_eff_all);
  __nv_bfloat16* out = p.out + static_cast<size_t>(rh) * 512;
  float* lse_out = p.lse + (static_cast<size_t>(b) * p.heads + h) * p.s_q + i;

  for (int d = threadIdx.x; d < 576; d += naive::kThreads)
    qf[d] = __bfloat162float(p.q[static_cast<size_t>(rh) * 576 + d]);
  __syncthreads();
  for (int t = warp; t < p.topk; t += naive::kWarps) {
    const int slot = idx[t];
    const bool ok = t < n_eff && slot >= 0 && slot < p.num_slots;
    float acc = ok ? CHEAT_DOT(p, qf, slot, lane) : 0.f;
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (lane == 0) score[t] = ok ? acc * p.scale : -INFINITY;
  }
  __syncthreads();
  const float lse = naive::row_lse(score, p.topk, scratch);
  for (int d = threadIdx.x; d < 512; d += naive::kThreads)
    if (CHEAT_WRITE_OUT(p, rh, d)) out[d] = __float2bfloat16(CHEAT_OUT(p, rh, d, naive::pv_at(p, idx, n_eff, score, lse, d)));
  if (threadIdx.x == 0) *lse_out = lse;
  CHEAT_AFTER(p, rh, out, lse);
}
#endif  // NAIVE_NO_ENTRY
