#pragma once
// The naive kernel (naive_mla.cuh) with its q row and each key's KV record
// fetched by TMA copies (cp.async.bulk.tensor) through tensor maps the harness
// encodes from the plan's requests (launch_plan.h): the device proof of that
// protocol. honest_tensor_map.cu uses it as it is and must pass on every
// workload, bf16 and fp8; tensor_map_overreach.cu draws the KV map past the
// cache's allocation, which the harness must refuse.
//
// Hook: TENSOR_MAP_KV_ROWS(p): the rows the KV map claims (default: the cache's own).
#define NAIVE_NO_ENTRY
#include <cstddef>
#include <cstdint>

#include "../tests/gpu/cheats/naive_mla.cuh"

#ifndef TENSOR_MAP_KV_ROWS
#define TENSOR_MAP_KV_ROWS(p) static_cast<unsigned long long>((p).num_slots)
#endif

namespace tmk {

constexpr int kQMap = 0, kKvMap = 1;              // map index = its 128-byte slot in the workspace
constexpr unsigned kQBox = 64;                    // bf16 values per copy of q: 128 bytes
constexpr unsigned kQCopies = 576 / kQBox;        // 9
constexpr unsigned kBf16Box = 64;                 // a bf16 KV row in 9 copies of 128 bytes
constexpr unsigned kFp8Box = 256;                 // an fp8 record (656 bytes) in 3 copies of 256; the last
constexpr unsigned kFp8Copies = 3;                // 112 bytes are past the row's end: TMA fills them with 0
constexpr unsigned kRecordBytes = 1152;           // the smem a record takes (the larger of 1152 and 768)

__device__ inline uint32_t smem_addr(const void* ptr) { return static_cast<uint32_t>(__cvta_generic_to_shared(ptr)); }

__device__ inline const void* map_at(const SparseMlaParams& p, int index) {
  return static_cast<const unsigned char*>(p.workspace) + static_cast<size_t>(index) * ar::kTensorMapBytes;
}

// The host wrote the map with a copy: make it visible to the tensor-map proxy before use (.sys scope, as
// the CUDA programming guide asks for a map written by cudaMemcpy).
__device__ inline void acquire_map(const void* map) {
  asm volatile("fence.proxy.tensormap::generic.acquire.sys [%0], 128;\n" ::"l"(map) : "memory");
}

__device__ inline void bar_init(uint64_t* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(smem_addr(bar)) : "memory");
}

__device__ inline void bar_expect(uint64_t* bar, unsigned bytes) {
  asm volatile("{\n.reg .b64 s;\nmbarrier.arrive.expect_tx.shared::cta.b64 s, [%0], %1;\n}\n" ::"r"(smem_addr(bar)),
               "r"(bytes)
               : "memory");
}

__device__ inline void bar_wait(uint64_t* bar, unsigned parity) {
  asm volatile(
      "{\n.reg .pred done;\nwait_again:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_again;\n}\n" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}

__device__ inline void copy_box(void* dst, const void* map, int x, int y, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          smem_addr(dst)),
      "l"(map), "r"(x), "r"(y), "r"(smem_addr(bar))
      : "memory");
}

// Row y of a map in `copies` boxes of `box_bytes`, into dst; one thread issues.
__device__ inline void fetch_row(void* dst, const void* map, int y, unsigned copies, unsigned box_values,
                                 unsigned box_bytes, uint64_t* bar) {
  bar_expect(bar, copies * box_bytes);
  for (unsigned c = 0; c < copies; ++c)
    copy_box(static_cast<unsigned char*>(dst) + c * box_bytes, map, static_cast<int>(c * box_values), y, bar);
}

// Dynamic shared memory: records (one per warp), q's bf16 staging, the barriers, then scores,
// q in fp32 and the reduction scratch.
constexpr size_t kRecordsOffset = 0;
constexpr size_t kQStageOffset = kRecordsOffset + naive::kWarps * kRecordBytes;
constexpr size_t kBarsOffset = kQStageOffset + 1152;
constexpr size_t kScoresOffset = kBarsOffset + 8 * (naive::kWarps + 1);
__device__ inline size_t shared_bytes(int topk) { return kScoresOffset + (static_cast<size_t>(topk) + 576 + naive::kWarps) * 4; }

}  // namespace tmk

extern "C" __global__ void ar_plan(const SparseMlaParams p, int num_sms, ar::LaunchPlan* plan) {
  ar::LaunchPlan pl = {};
  pl.num_stages = 1;
  pl.stage[0].grid[0] = static_cast<unsigned>(p.batch * p.s_q * p.heads);
  pl.stage[0].grid[1] = pl.stage[0].grid[2] = 1;
  pl.stage[0].block[0] = naive::kThreads;
  pl.stage[0].block[1] = pl.stage[0].block[2] = 1;
  pl.stage[0].shared_bytes = static_cast<unsigned>(tmk::shared_bytes(p.topk));
  pl.workspace_bytes = 2 * ar::kTensorMapBytes;
  pl.num_tensor_maps = 2;
  // q: [rows x heads] rows of 576 bf16.
  ar::TensorMapRequest& q = pl.tensor_map[tmk::kQMap];
  q.source = ar::kTensorMapFromParams;
  q.param_offset = static_cast<int>(offsetof(SparseMlaParams, q));
  q.data_type = 9;   // CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
  q.rank = 2;
  q.global_dim[0] = 576;
  q.global_dim[1] = static_cast<unsigned long long>(p.batch) * p.s_q * p.heads;
  q.global_stride[0] = 1152;
  q.box_dim[0] = tmk::kQBox;
  q.box_dim[1] = 1;
  q.element_stride[0] = q.element_stride[1] = 1;
  q.map_offset = tmk::kQMap * ar::kTensorMapBytes;
  // kv: the cache's rows, bf16 values or fp8 records as bytes.
  ar::TensorMapRequest& kv = pl.tensor_map[tmk::kKvMap];
  kv.source = ar::kTensorMapFromParams;
  kv.param_offset = static_cast<int>(offsetof(SparseMlaParams, kv));
  kv.data_type = p.kv_fp8 ? 0 : 9;   // UINT8 : BFLOAT16
  kv.rank = 2;
  kv.global_dim[0] = p.kv_fp8 ? 656 : 576;
  kv.global_dim[1] = TENSOR_MAP_KV_ROWS(p);
  kv.global_stride[0] = p.kv_fp8 ? 656 : 1152;
  kv.box_dim[0] = p.kv_fp8 ? tmk::kFp8Box : tmk::kBf16Box;
  kv.box_dim[1] = 1;
  kv.element_stride[0] = kv.element_stride[1] = 1;
  kv.map_offset = tmk::kKvMap * ar::kTensorMapBytes;
  *plan = pl;
}

extern "C" __global__ void __launch_bounds__(naive::kThreads) ar_stage0(const SparseMlaParams p) {
  extern __shared__ __align__(128) unsigned char smem[];
  unsigned char* records = smem + tmk::kRecordsOffset;
  auto* q_stage = reinterpret_cast<__nv_bfloat16*>(smem + tmk::kQStageOffset);
  auto* bars = reinterpret_cast<uint64_t*>(smem + tmk::kBarsOffset);   // [warps] per warp, then q's
  float* score = reinterpret_cast<float*>(smem + tmk::kScoresOffset);
  float* qf = score + p.topk;
  float* scratch = qf + 576;
  const int rh = blockIdx.x;
  const int row = rh / p.heads, h = rh - row * p.heads;
  const int b = row / p.s_q, i = row - b * p.s_q;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int* idx = p.indices + static_cast<size_t>(row) * p.topk;
  const int n_eff = p.topk_length ? min(max(p.topk_length[b], 0), p.topk) : p.topk;
  const bool fp8 = p.kv_fp8 != 0;
  const void* q_map = tmk::map_at(p, tmk::kQMap);
  const void* kv_map = tmk::map_at(p, tmk::kKvMap);

  if (threadIdx.x == 0) {
    tmk::acquire_map(q_map);
    tmk::acquire_map(kv_map);
    for (int w = 0; w <= naive::kWarps; ++w) tmk::bar_init(&bars[w]);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    tmk::fetch_row(q_stage, q_map, rh, tmk::kQCopies, tmk::kQBox, tmk::kQBox * 2, &bars[naive::kWarps]);
  }
  __syncthreads();
  tmk::bar_wait(&bars[naive::kWarps], 0);
  for (int d = threadIdx.x; d < 576; d += naive::kThreads) qf[d] = __bfloat162float(q_stage[d]);
  __syncthreads();

  // Scores: warp w fetches each of its keys' records into its own buffer, then reduces q . K.
  unsigned char* rec = records + warp * tmk::kRecordBytes;
  if (lane == 0) tmk::acquire_map(kv_map);
  unsigned parity = 0;
  for (int t = warp; t < p.topk; t += naive::kWarps) {
    const int slot = idx[t];
    const bool ok = t < n_eff && slot >= 0 && slot < p.num_slots;
    float acc = 0.f;
    if (ok) {
      if (lane == 0) {
        if (fp8)
          tmk::fetch_row(rec, kv_map, slot, tmk::kFp8Copies, tmk::kFp8Box, tmk::kFp8Box, &bars[warp]);
        else
          tmk::fetch_row(rec, kv_map, slot, 576 / tmk::kBf16Box, tmk::kBf16Box, tmk::kBf16Box * 2, &bars[warp]);
      }
      tmk::bar_wait(&bars[warp], parity);
      parity ^= 1u;
      for (int d = lane; d < 576; d += 32) acc += qf[d] * naive::decode_record(rec, fp8, d);
    }
    __syncwarp();   // every lane is done with the record before lane 0 fetches the next into it
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (lane == 0) score[t] = ok ? acc * p.scale : -INFINITY;
  }
  __syncthreads();
  const float lse = naive::row_lse(score, p.topk, scratch);
  __nv_bfloat16* out = p.out + static_cast<size_t>(rh) * 512;
  for (int d = threadIdx.x; d < 512; d += naive::kThreads) out[d] = __float2bfloat16(naive::pv_at(p, idx, n_eff, score, lse, d));
  if (threadIdx.x == 0) p.lse[(static_cast<size_t>(b) * p.heads + h) * p.s_q + i] = lse;
}
