// Can TMA gather sparse_mla's KV rows straight into the layout wgmma reads from shared memory, and how
// fast? (RESULTS.md, 2026-12-04: the row path is bound by its math because bulk copies land rows
// row-major, which wgmma cannot read as an operand; the chunk-major path's math is faster but its
// 16-byte cp.async gathers are slower.)
//
// The 128-byte-swizzled K-major layout of a 64-row tile: 16-byte unit j of 128-byte chunk c of row r at
// c * 8192 + r * 128 + ((j ^ (r & 7)) * 16). The same bytes are V's MN-major layout for P V. TMA writes
// it with one 2D box {64 values, 1 row} per chunk (nine a row) under CU_TENSOR_MAP_SWIZZLE_128B, if the
// swizzle follows the shared-memory address (a box at r * 128 inside a 1024-byte-aligned atom). This
// probe checks that layout bit for bit, then times the access pattern of b128_32k without math (as
// scripts/device/gather_probe does; own pool: each token its own 32k rows, 4.8 GB) for:
//   bulk     one cp.async.bulk per row (1152 B, row-major: the row path's engine, the baseline)
//   tma      nine TMA boxes a row into the swizzled layout, from one warp (lane l: rows l and l + 32)
//   tma2     the same from two warps (32 rows each)
//   tma4, tma8  the tile's 576 boxes spread over the lanes of 4 or 8 warps (box b: row b / 9, chunk b % 9)
// Prints the median of 10 launches, each after a 256 MB L2 flush.
//
//   bash scripts/device/tma_gather_probe/run.sh   (builds it, then: check, bulk, tma, tma2, one process each)
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int kRowBytes = 1152;
constexpr int kChunks = kRowBytes / 128;   // 9 chunks of 64 bf16
constexpr int kTopk = 2048;
constexpr int kContext = 32768;
constexpr int kTokens = 128;
constexpr int kTileRows = 64;
constexpr int kTileBytes = kTileRows * kRowBytes;   // 73728, a multiple of 1024
constexpr int kSmemBytes = 2048 + 2 * kTileBytes;   // barriers, alignment slack, two stages

#include "../gather_probe/probe_ptx.cuh"

__device__ __forceinline__ void bulk_row(uint32_t dst, const void* src, uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
               "l"(src), "n"(kRowBytes), "r"(smem_addr(bar))
               : "memory");
}
// One box {64 values, 1 row} at (value x, row y) of the tensor map.
__device__ __forceinline__ void tma_box(uint32_t dst, const CUtensorMap* map, int x, int y, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(smem_addr(bar))
      : "memory");
}

enum Engine { kBulk = 0, kTma = 1, kTma2 = 2, kTma4 = 3, kTma8 = 4 };
constexpr const char* kEngineName[] = {"bulk", "tma", "tma2", "tma4", "tma8"};
__host__ __device__ constexpr int producer_warps(int engine) {
  return engine == kTma2 ? 2 : engine == kTma4 ? 4 : engine == kTma8 ? 8 : 1;
}

// Row r of a tile into the stage at `stage` (1024-aligned): one bulk copy (row-major), or nine boxes.
template <int ENGINE>
__device__ __forceinline__ void copy_row(const CUtensorMap* map, const unsigned char* pool, int slot, int r,
                                         unsigned char* stage, uint64_t* bar) {
  if (ENGINE == kBulk) {
    bulk_row(smem_addr(stage + r * kRowBytes), pool + static_cast<size_t>(slot) * kRowBytes, bar);
  } else {
#pragma unroll
    for (int c = 0; c < kChunks; ++c) tma_box(smem_addr(stage + c * kTileRows * 128 + r * 128), map, c * 64, slot, bar);
  }
}

// grid: tokens * bpt blocks (or one block for the layout check); block: the producer warps, then a consumer
// warp that waits for each tile, reads a word of it and releases the stage.
template <int ENGINE>
__global__ void __launch_bounds__(32 * (producer_warps(ENGINE) + 1), 1)
    gather(const __grid_constant__ CUtensorMap map, const unsigned char* __restrict__ pool, const int* __restrict__ idx,
           int bpt, int tiles, unsigned char* dump, unsigned* sink) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  unsigned char* base = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  uint64_t* full = reinterpret_cast<uint64_t*>(base);
  uint64_t* empty = full + 2;
  unsigned char* stage0 = base + 1024;
  const int token = blockIdx.x / bpt;
  const int* rows = idx + static_cast<size_t>(token) * kTopk;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  constexpr int kProducers = producer_warps(ENGINE);
  if (threadIdx.x == 0) {
    for (int s = 0; s < 2; ++s) {
      mbar_init(full + s, kProducers);
      mbar_init(empty + s, 1);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if (warp < kProducers) {
    for (int j = 0; j < tiles; ++j) {
      const int st = j & 1;
      if (j >= 2) mbar_wait(empty + st, ((j >> 1) - 1) & 1);
      unsigned char* dst = stage0 + st * kTileBytes;
      constexpr int kRowsPerWarp = kTileRows / kProducers;
      if (lane == 0) mbar_arrive_expect_tx(full + st, kRowsPerWarp * kRowBytes);
      __syncwarp();
      if (ENGINE == kTma4 || ENGINE == kTma8) {
        for (int b = warp * 32 + lane; b < kTileRows * kChunks; b += 32 * kProducers) {
          const int r = b / kChunks, c = b - r * kChunks;
          tma_box(smem_addr(dst + c * kTileRows * 128 + r * 128), &map, c * 64, rows[j * kTileRows + r], full + st);
        }
      } else {
        for (int r = warp * kRowsPerWarp + lane; r < (warp + 1) * kRowsPerWarp; r += 32)
          copy_row<ENGINE>(&map, pool, rows[j * kTileRows + r], r, dst, full + st);
      }
    }
  } else if (warp == kProducers) {
    unsigned acc = 0;
    for (int j = 0; j < tiles; ++j) {
      const int st = j & 1;
      mbar_wait(full + st, (j >> 1) & 1);
      acc += reinterpret_cast<const unsigned*>(stage0 + st * kTileBytes)[lane];
      if (dump != nullptr && j == 0)   // the layout check: the first tile as it landed
        for (int i = lane; i < kTileBytes / 16; i += 32)
          reinterpret_cast<uint4*>(dump)[i] = reinterpret_cast<const uint4*>(stage0)[i];
      __syncwarp();
      if (lane == 0) mbar_arrive(empty + st);
    }
    if (acc == 0x12345678u) *sink = acc;
  }
}

CUtensorMap make_map(void* pool, size_t rows) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {kRowBytes / 2, rows};
  const cuuint64_t strides[1] = {kRowBytes};
  const cuuint32_t box[2] = {64, 1};
  const cuuint32_t estrides[2] = {1, 1};
  const CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, pool, dims, strides, box,
                                            estrides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", static_cast<int>(r));
    std::exit(1);
  }
  return map;
}

template <int ENGINE>
void launch(const CUtensorMap& map, const unsigned char* pool, const int* idx, int grid, int bpt, int tiles,
            unsigned char* dump, unsigned* sink) {
  auto k = gather<ENGINE>;
  CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  k<<<grid, 32 * (producer_warps(ENGINE) + 1), kSmemBytes>>>(map, pool, idx, bpt, tiles, dump, sink);
}

template <int ENGINE>
float time_it(const CUtensorMap& map, const unsigned char* pool, const int* idx, int bpt, unsigned* sink,
              unsigned char* flush, size_t flush_bytes) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int rep = 0; rep < 11; ++rep) {
    CHECK(cudaMemsetAsync(flush, rep, flush_bytes));
    CHECK(cudaEventRecord(a));
    launch<ENGINE>(map, pool, idx, kTokens * bpt, bpt, kTopk / kTileRows, nullptr, sink);
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaGetLastError());
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (rep > 0) t.push_back(ms * 1000.f);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// The first tile of token 0 through ENGINE, compared with where each byte must land; returns mismatches.
template <int ENGINE>
long check_layout(const CUtensorMap& map, const unsigned char* pool, const std::vector<unsigned char>& host_pool_rows,
                  const int* idx, unsigned char* dump, unsigned* sink) {
  CHECK(cudaMemset(dump, 0, kTileBytes));
  launch<ENGINE>(map, pool, idx, 1, 1, 1, dump, sink);
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned char> got(kTileBytes);
  CHECK(cudaMemcpy(got.data(), dump, kTileBytes, cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int r = 0; r < kTileRows; ++r) {
    const unsigned char* row = &host_pool_rows[static_cast<size_t>(r) * kRowBytes];   // row r's bytes (slot idx[r])
    for (int c = 0; c < kChunks; ++c)
      for (int j = 0; j < 8; ++j)
        for (int b = 0; b < 16; ++b) {
          const size_t at = ENGINE == kBulk ? static_cast<size_t>(r) * kRowBytes + c * 128 + j * 16 + b
                                            : static_cast<size_t>(c) * kTileRows * 128 + r * 128 + ((j ^ (r & 7)) * 16) + b;
          bad += got[at] != row[c * 128 + j * 16 + b];
        }
  }
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  // One part a process (run.sh): a fault in one (a misaligned TMA box is an illegal instruction) must not
  // lose the others' numbers.
  const std::string part = argc > 1 ? argv[1] : "check";
  const size_t pool_rows = static_cast<size_t>(kTokens) * kContext;
  unsigned char* pool = nullptr;
  int* idx = nullptr;
  unsigned* sink = nullptr;
  unsigned char* flush = nullptr;
  unsigned char* dump = nullptr;
  const size_t flush_bytes = 256u << 20;
  CHECK(cudaMalloc(&pool, pool_rows * kRowBytes));
  CHECK(cudaMalloc(&idx, sizeof(int) * kTokens * kTopk));
  CHECK(cudaMalloc(&sink, sizeof(unsigned)));
  CHECK(cudaMalloc(&flush, flush_bytes));
  CHECK(cudaMalloc(&dump, kTileBytes));
  std::vector<int> own(static_cast<size_t>(kTokens) * kTopk);
  std::mt19937 rng(7);
  std::vector<int> perm(kContext);
  for (int t = 0; t < kTokens; ++t) {
    for (int i = 0; i < kContext; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    for (int i = 0; i < kTopk; ++i) own[static_cast<size_t>(t) * kTopk + i] = t * kContext + perm[i];
  }
  CHECK(cudaMemcpy(idx, own.data(), sizeof(int) * own.size(), cudaMemcpyHostToDevice));
  // Known bytes in token 0's first tile's rows (elsewhere the pool is whatever memset left).
  CHECK(cudaMemset(pool, 1, pool_rows * kRowBytes));
  std::vector<unsigned char> tile_rows(static_cast<size_t>(kTileRows) * kRowBytes);
  for (size_t i = 0; i < tile_rows.size(); ++i) tile_rows[i] = static_cast<unsigned char>(rng());
  for (int r = 0; r < kTileRows; ++r)
    CHECK(cudaMemcpy(pool + static_cast<size_t>(own[r]) * kRowBytes, &tile_rows[static_cast<size_t>(r) * kRowBytes],
                     kRowBytes, cudaMemcpyHostToDevice));
  const CUtensorMap map = make_map(pool, pool_rows);

  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs; %d tokens x %d rows of %d B, own pool %.1f GB; 64-row tiles, 2 stages; median of 10\n",
              prop.name, prop.multiProcessorCount, kTokens, kTopk, kRowBytes, pool_rows * kRowBytes / 1e9);
  if (part == "check") {
    std::printf("layout check (one tile, every byte where it must land): bulk %ld mismatches\n",
                check_layout<kBulk>(map, pool, tile_rows, idx, dump, sink));
    std::fflush(stdout);
    std::printf("layout check: tma %ld mismatches\n", check_layout<kTma>(map, pool, tile_rows, idx, dump, sink));
    std::fflush(stdout);
    std::printf("layout check: tma2 %ld mismatches\n", check_layout<kTma2>(map, pool, tile_rows, idx, dump, sink));
    std::printf("layout check: tma4 %ld, tma8 %ld mismatches\n", check_layout<kTma4>(map, pool, tile_rows, idx, dump, sink),
                check_layout<kTma8>(map, pool, tile_rows, idx, dump, sink));
    std::printf("%-6s %-13s %10s %12s %14s\n", "engine", "blocks/token", "us", "L2->SM TB/s", "per SM GB/s");
    return 0;
  }
  const int engine = part == "bulk" ? kBulk : part == "tma" ? kTma : part == "tma2" ? kTma2 : part == "tma4" ? kTma4 : kTma8;
  for (int bpt : {1, 2}) {
    float us = 0;
    switch (engine) {
      case kBulk: us = time_it<kBulk>(map, pool, idx, bpt, sink, flush, flush_bytes); break;
      case kTma: us = time_it<kTma>(map, pool, idx, bpt, sink, flush, flush_bytes); break;
      case kTma2: us = time_it<kTma2>(map, pool, idx, bpt, sink, flush, flush_bytes); break;
      case kTma4: us = time_it<kTma4>(map, pool, idx, bpt, sink, flush, flush_bytes); break;
      default: us = time_it<kTma8>(map, pool, idx, bpt, sink, flush, flush_bytes); break;
    }
    const double bytes = static_cast<double>(kTokens) * bpt * kTopk * kRowBytes;
    const int active = std::min(kTokens * bpt, prop.multiProcessorCount);
    std::printf("%-6s %-13d %10.1f %12.2f %14.1f\n", kEngineName[engine], bpt, us, bytes / us / 1e6,
                bytes / us / 1e3 / active);
    std::fflush(stdout);
  }
  return 0;
}
