// Honest control: a different tile order — each block walks its keys in
// tiles of 64 starting at a tile that depends on the block (so neighbouring
// blocks gather different rows first), for the scores and for the P V sums.
// Deterministic for a given workload, within tolerance of the reference.
// Expected: passes verify and every bench check (no false alarm).
#define NAIVE_NO_ENTRY
#include "../tests/gpu/cheats/naive_mla.cuh"

constexpr int kTile = 64;

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
  const int tiles = (p.topk + kTile - 1) / kTile;
  const int first = rh % tiles;
  auto position = [&](int k) {   // the k-th key visited: tiles in rotated order
    const int tile = (first + k / kTile) % tiles;
    return tile * kTile + k % kTile;
  };

  for (int d = threadIdx.x; d < 576; d += naive::kThreads)
    qf[d] = __bfloat162float(p.q[static_cast<size_t>(rh) * 576 + d]);
  __syncthreads();
  for (int k = warp; k < tiles * kTile; k += naive::kWarps) {
    const int t = position(k);
    if (t >= p.topk) continue;
    const int slot = idx[t];
    const bool ok = t < n_eff && slot >= 0 && slot < p.num_slots;
    float acc = ok ? naive::dot_lane(p, qf, slot, lane) : 0.f;
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (lane == 0) score[t] = ok ? acc * p.scale : -INFINITY;
  }
  __syncthreads();
  const float lse = naive::row_lse(score, p.topk, scratch);
  __nv_bfloat16* out = p.out + static_cast<size_t>(rh) * 512;
  for (int d = threadIdx.x; d < 512; d += naive::kThreads) {
    float acc = 0.f;
    if (lse != INFINITY)
      for (int k = 0; k < tiles * kTile; ++k) {
        const int t = position(k);
        if (t >= n_eff) continue;
        const int slot = idx[t];
        if (slot >= 0 && slot < p.num_slots) acc += expf(score[t] - lse) * naive::kv_at(p, slot, d);
      }
    out[d] = __float2bfloat16(acc);
  }
  if (threadIdx.x == 0) p.lse[(static_cast<size_t>(b) * p.heads + h) * p.s_q + i] = lse;
}
