// Honest control: split-KV merged inside a thread-block cluster instead of
// through the workspace and a second stage. Each (query row, head) gets a
// cluster of 4 blocks (the plan's ar::stage_cluster(4)); block r scores a
// quarter of the top-k list and keeps its unnormalised P V, its max and its
// sum in shared memory; after a cluster barrier block r merges value columns
// [128 r, 128 r + 128) from all four blocks' shared memory (distributed shared
// memory) and writes them; rank 0 writes lse. A second barrier keeps every
// block's shared memory alive until the others have read it. Expected: passes
// verify and every bench check (it needs the harness's cluster launch: without
// it each block would merge alone and be wrong).
#define NAIVE_NO_ENTRY
#include <cooperative_groups.h>

#include "../tests/gpu/cheats/naive_mla.cuh"

namespace cg = cooperative_groups;

namespace {
constexpr int kCluster = 4;
constexpr int kColsPerRank = 512 / kCluster;

// Shared memory: [score: quarter of topk][qf: 576][scratch: warps][o: 512][m, l]
__device__ inline int quarter(int topk) { return (topk + kCluster - 1) / kCluster; }
}  // namespace

extern "C" __global__ void ar_plan(const SparseMlaParams p, int num_sms, ar::LaunchPlan* plan) {
  ar::LaunchPlan pl = {};
  pl.num_stages = 1;
  pl.stage[0].grid[0] = static_cast<unsigned>(p.batch * p.s_q * p.heads * kCluster);
  pl.stage[0].grid[1] = pl.stage[0].grid[2] = 1;
  pl.stage[0].block[0] = naive::kThreads;
  pl.stage[0].block[1] = pl.stage[0].block[2] = 1;
  pl.stage[0].shared_bytes = static_cast<unsigned>((quarter(p.topk) + 576 + naive::kWarps + 512 + 2) * sizeof(float));
  pl.stage[0].flags = ar::stage_cluster(kCluster);
  *plan = pl;
}

extern "C" __global__ void __launch_bounds__(naive::kThreads) ar_stage0(const SparseMlaParams p) {
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  extern __shared__ float sm[];
  const int nq = quarter(p.topk);
  float* score = sm;
  float* qf = score + nq;
  float* scratch = qf + 576;
  float* o = scratch + naive::kWarps;
  float* ml = o + 512;   // this block's max and sum
  const int rh = blockIdx.x / kCluster;
  const int row = rh / p.heads, h = rh - row * p.heads;
  const int b = row / p.s_q, i = row - b * p.s_q;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int* idx = p.indices + static_cast<size_t>(row) * p.topk;
  const int n_eff = p.topk_length ? min(max(p.topk_length[b], 0), p.topk) : p.topk;
  const int t0 = rank * nq, t1 = min(t0 + nq, p.topk);

  for (int d = threadIdx.x; d < 576; d += naive::kThreads)
    qf[d] = __bfloat162float(p.q[static_cast<size_t>(rh) * 576 + d]);
  __syncthreads();
  for (int t = t0 + warp; t < t1; t += naive::kWarps) {
    const int slot = idx[t];
    const bool ok = t < n_eff && slot >= 0 && slot < p.num_slots;
    float acc = ok ? naive::dot_lane(p, qf, slot, lane) : 0.f;
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (lane == 0) score[t - t0] = ok ? acc * p.scale : -INFINITY;
  }
  __syncthreads();
  float m = -INFINITY;
  for (int t = t0 + threadIdx.x; t < t1; t += naive::kThreads) m = fmaxf(m, score[t - t0]);
  m = naive::block_max(m, scratch);
  float l = 0.f;
  if (m != -INFINITY) {
    for (int t = t0 + threadIdx.x; t < t1; t += naive::kThreads) l += expf(score[t - t0] - m);
    l = naive::block_sum(l, scratch);
  }
  for (int d = threadIdx.x; d < 512; d += naive::kThreads) {
    float acc = 0.f;
    if (m != -INFINITY)
      for (int t = t0; t < min(t1, n_eff); ++t) {
        const int slot = idx[t];
        if (slot >= 0 && slot < p.num_slots) acc += expf(score[t - t0] - m) * naive::kv_at(p, slot, d);
      }
    o[d] = acc;
  }
  if (threadIdx.x == 0) {
    ml[0] = m;
    ml[1] = l;
  }
  cluster.sync();   // every block's o, m and l are written and visible cluster-wide

  float mr[kCluster], lr[kCluster];
  float mx = -INFINITY;
  for (int r = 0; r < kCluster; ++r) {
    const float* peer = cluster.map_shared_rank(ml, r);
    mr[r] = peer[0];
    lr[r] = peer[1];
    mx = fmaxf(mx, mr[r]);
  }
  float total = 0.f;
  float w[kCluster];
  for (int r = 0; r < kCluster; ++r) {
    w[r] = mr[r] == -INFINITY ? 0.f : expf(mr[r] - mx);
    total += w[r] * lr[r];
  }
  __nv_bfloat16* out = p.out + static_cast<size_t>(rh) * 512;
  for (int d = rank * kColsPerRank + threadIdx.x; d < (rank + 1) * kColsPerRank; d += naive::kThreads) {
    float acc = 0.f;
    for (int r = 0; r < kCluster; ++r) acc += w[r] * cluster.map_shared_rank(o, r)[d];
    out[d] = __float2bfloat16(total > 0.f ? acc / total : 0.f);
  }
  if (rank == 0 && threadIdx.x == 0)
    p.lse[(static_cast<size_t>(b) * p.heads + h) * p.s_q + i] = total > 0.f ? mx + logf(total) : INFINITY;
  cluster.sync();   // no block leaves while another still reads its shared memory
}
