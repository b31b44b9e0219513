// Honest control: the naive kernel with its loops reordered — keys scored
// from the last position to the first, each dot product summed from the last
// dimension down, and the P V sums taken over the keys in reverse. Different
// rounding, the same answer within tolerance, bit-identical from launch to
// launch. Expected: passes verify and every bench check (no false alarm).
#define NAIVE_NO_ENTRY
#include "../tests/gpu/cheats/naive_mla.cuh"

extern "C" __global__ void ar_plan(const SparseMlaParams p, int num_sms, ar::LaunchPlan* plan) {
  ar::LaunchPlan pl = {};
  pl.num_stages = 1;
  pl.stage[0].grid[0] = static_cast<unsigned>(p.batch * p.s_q * p.heads);
  pl.stage[0].grid[1] = pl.stage[0].grid[2] = 1;
  pl.stage[0].block[0] = naive::kThreads;
  pl.stage[0].block[1] = pl.stage[0].block[2] = 1;
  pl.stage[0].shared_bytes = static_cast<unsigned>((p.topk + 576 + naive::kWarps) * sizeof(float));
  *plan = pl;
}

extern "C" __global__ void __launch_bounds__(naive::kThreads) ar_stage0(const SparseMlaParams p) {
  extern __shared__ float sm[];
  float* score = sm;
  float* qf = sm + p.topk;
  float* scratch = qf + 576;
  const int rh = blockIdx.x;
  const int row = rh / p.heads, h = rh - row * p.heads;
  const int b = row / p.s_q, i = row - b * p.s_q;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int* idx = p.indices + static_cast<size_t>(row) * p.topk;
  const int n_eff = p.topk_length ? min(max(p.topk_length[b], 0), p.topk) : p.topk;

  for (int d = 575 - static_cast<int>(threadIdx.x); d >= 0; d -= naive::kThreads)
    qf[d] = __bfloat162float(p.q[static_cast<size_t>(rh) * 576 + d]);
  __syncthreads();
  for (int t = p.topk - 1 - warp; t >= 0; t -= naive::kWarps) {
    const int slot = idx[t];
    const bool ok = t < n_eff && slot >= 0 && slot < p.num_slots;
    float acc = 0.f;
    if (ok)
      for (int d = 575 - lane; d >= 0; d -= 32) acc += qf[d] * naive::kv_at(p, slot, d);
    for (int off = 1; off < 32; off <<= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (lane == 0) score[t] = ok ? acc * p.scale : -INFINITY;
  }
  __syncthreads();
  float m = -INFINITY;
  for (int t = p.topk - 1 - static_cast<int>(threadIdx.x); t >= 0; t -= naive::kThreads) m = fmaxf(m, score[t]);
  m = naive::block_max(m, scratch);
  float lse = INFINITY;
  if (m != -INFINITY) {
    float sum = 0.f;
    for (int t = p.topk - 1 - static_cast<int>(threadIdx.x); t >= 0; t -= naive::kThreads) sum += expf(score[t] - m);
    lse = m + logf(naive::block_sum(sum, scratch));
  }
  __nv_bfloat16* out = p.out + static_cast<size_t>(rh) * 512;
  for (int d = 511 - static_cast<int>(threadIdx.x); d >= 0; d -= naive::kThreads) {
    float acc = 0.f;
    if (m != -INFINITY)
      for (int t = n_eff - 1; t >= 0; --t) {
        const int slot = idx[t];
        if (slot >= 0 && slot < p.num_slots) acc += expf(score[t] - lse) * naive::kv_at(p, slot, d);
      }
    out[d] = __float2bfloat16(acc);
  }
  if (threadIdx.x == 0) p.lse[(static_cast<size_t>(b) * p.heads + h) * p.s_q + i] = lse;
}
