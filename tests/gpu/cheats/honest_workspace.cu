// Honest control: a kernel that uses the workspace honestly. Stage 0 writes
// each row's softmax probabilities and lse into the workspace; stage 1 reads
// them back and forms out = P V. Every workspace word stage 1 reads, stage 0
// wrote in the same launch, so refilling the workspace with 0xFF before every
// launch changes nothing. Expected: passes verify and every bench check.
#define NAIVE_NO_ENTRY
#include "../tests/gpu/cheats/naive_mla.cuh"

// Workspace: [rows * heads] rows of (topk probabilities, then lse).
__device__ inline float* ws_row(const SparseMlaParams& p, int rh) {
  return static_cast<float*>(p.workspace) + static_cast<size_t>(rh) * (p.topk + 1);
}

extern "C" __global__ void ar_plan(const SparseMlaParams p, int num_sms, ar::LaunchPlan* plan) {
  ar::LaunchPlan pl = {};
  const unsigned blocks = static_cast<unsigned>(p.batch * p.s_q * p.heads);
  pl.num_stages = 2;
  for (int s = 0; s < 2; ++s) {
    pl.stage[s].grid[0] = blocks;
    pl.stage[s].grid[1] = pl.stage[s].grid[2] = 1;
    pl.stage[s].block[0] = naive::kThreads;
    pl.stage[s].block[1] = pl.stage[s].block[2] = 1;
  }
  pl.stage[0].shared_bytes = static_cast<unsigned>((p.topk + 576 + naive::kWarps) * sizeof(float));
  pl.stage[1].shared_bytes = static_cast<unsigned>(p.topk * sizeof(float));
  pl.workspace_bytes = static_cast<unsigned long long>(blocks) * (p.topk + 1) * sizeof(float);
  *plan = pl;
}

extern "C" __global__ void __launch_bounds__(naive::kThreads) ar_stage0(const SparseMlaParams p) {
  extern __shared__ float sm[];
  float* score = sm;
  float* qf = sm + p.topk;
  float* scratch = qf + 576;
  const int rh = blockIdx.x;
  const int row = rh / p.heads;
  const int b = row / p.s_q;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int* idx = p.indices + static_cast<size_t>(row) * p.topk;
  const int n_eff = p.topk_length ? min(max(p.topk_length[b], 0), p.topk) : p.topk;
  for (int d = threadIdx.x; d < 576; d += naive::kThreads)
    qf[d] = __bfloat162float(p.q[static_cast<size_t>(rh) * 576 + d]);
  __syncthreads();
  for (int t = warp; t < p.topk; t += naive::kWarps) {
    const int slot = idx[t];
    const bool ok = t < n_eff && slot >= 0 && slot < p.num_slots;
    float acc = ok ? naive::dot_lane(p, qf, slot, lane) : 0.f;
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (lane == 0) score[t] = ok ? acc * p.scale : -INFINITY;
  }
  __syncthreads();
  const float lse = naive::row_lse(score, p.topk, scratch);
  float* w = ws_row(p, rh);
  for (int t = threadIdx.x; t < p.topk; t += naive::kThreads)
    w[t] = lse == INFINITY || score[t] == -INFINITY ? 0.f : expf(score[t] - lse);
  if (threadIdx.x == 0) w[p.topk] = lse;
}

extern "C" __global__ void __launch_bounds__(naive::kThreads) ar_stage1(const SparseMlaParams p) {
  extern __shared__ float prob[];
  const int rh = blockIdx.x;
  const int row = rh / p.heads, h = rh - row * p.heads;
  const int b = row / p.s_q, i = row - b * p.s_q;
  const int* idx = p.indices + static_cast<size_t>(row) * p.topk;
  const int n_eff = p.topk_length ? min(max(p.topk_length[b], 0), p.topk) : p.topk;
  const float* w = ws_row(p, rh);
  for (int t = threadIdx.x; t < p.topk; t += naive::kThreads) prob[t] = w[t];
  __syncthreads();
  __nv_bfloat16* out = p.out + static_cast<size_t>(rh) * 512;
  for (int d = threadIdx.x; d < 512; d += naive::kThreads) {
    float acc = 0.f;
    for (int t = 0; t < n_eff; ++t) {
      const int slot = idx[t];
      if (prob[t] != 0.f && slot >= 0 && slot < p.num_slots) acc += prob[t] * naive::kv_at(p, slot, d);
    }
    out[d] = __float2bfloat16(acc);
  }
  if (threadIdx.x == 0) p.lse[(static_cast<size_t>(b) * p.heads + h) * p.s_q + i] = w[p.topk];
}
