// How fast can one SM gather sparse_mla's KV rows, and through which engine?
// (kernels/sparse_mla/results/RESULTS.md, "2026-12-02 (afternoon)": the kernel's
// gathers run at about 14 GB/s a SM whatever the number of issuing warps, the
// request size or the stages; is that the 16-byte cp.async path's limit, the
// random rows' HBM rate, or how the producer issues?)
//
// The access pattern of the b128_32k workload without any math: a block per
// (token, head group) walks the token's 2048 random rows in 64-row tiles through
// shared-memory stages, producer warps filling them and a consumer warp
// releasing each one as soon as it has landed. 222 KB of shared memory per
// block keeps one block per SM, as in the kernel. Engines:
//   lsu16     16-byte cp.async from one warp, four lanes per row over 64 bytes of
//             eight rows a copy (the kernel's producer today)
//   lsu16x4   16-byte cp.async from four warps, eight lanes per row (whole
//             128-byte lines), a tile's row indices read before its copies,
//             .L2::256B prefetch (the shape of FlashMLA's sparse producer)
//   lsu16x4el the same with an L2 evict-last policy on every copy
//   bulk      one cp.async.bulk per row (1152 bytes, the bulk-copy engine),
//             counted on the stage's mbarrier by complete_tx
// Pools: "own" gives each token its own 32k-row context (4.8 GB in all, as the
// package's workloads and a serving batch do); "shared" has every token pick
// from the same 32k rows (38 MB, which fits in L2: a test that builds one KV
// tensor for all queries measures this). Each runs with 1 and 2 blocks per
// token (h16-like: each row fetched once; b128-like: two blocks fetch the same
// rows) and 2 or 3 stages. Prints the median of 10 launches, each after a
// 256 MB L2 flush.
//
//   nvcc -std=c++17 -O3 -arch=sm_90a gather_probe.cu -o gather_probe
//   ./gather_probe && ./gather_probe evict-last
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int kRowBytes = 1152;
constexpr int kTopk = 2048;
constexpr int kContext = 32768;
constexpr int kTokens = 128;
constexpr int kTileRows = 64;
constexpr int kTileBytes = kTileRows * kRowBytes;
constexpr int kSmemBytes = 222 * 1024;

#include "probe_ptx.cuh"

enum Engine { kLsu16 = 0, kLsu16x4 = 1, kLsu16x4EvictLast = 2, kBulk = 3 };
constexpr const char* kEngineName[] = {"lsu16", "lsu16x4", "lsu16x4el", "bulk"};
__host__ __device__ constexpr int producer_warps(int engine) { return engine == kLsu16x4 || engine == kLsu16x4EvictLast ? 4 : 1; }

// grid: kTokens * blocks_per_token blocks; block: the producer warps, then one consumer warp.
template <int ENGINE>
__global__ void __launch_bounds__(32 * (producer_warps(ENGINE) + 1), 1)
    gather(const unsigned char* __restrict__ pool, const int* __restrict__ idx, int blocks_per_token, int stages,
           unsigned* sink) {
  extern __shared__ __align__(128) unsigned char smem[];
  uint64_t* full = reinterpret_cast<uint64_t*>(smem);
  uint64_t* empty = full + stages;
  unsigned char* stage0 = smem + 1024;
  const int token = blockIdx.x / blocks_per_token;
  const int* rows = idx + static_cast<size_t>(token) * kTopk;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  constexpr int kTiles = kTopk / kTileRows;
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) {
      mbar_init(full + s, ENGINE == kBulk ? 1 : 2 * 32 * producer_warps(ENGINE));
      mbar_init(empty + s, 1);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  constexpr int kProducers = producer_warps(ENGINE);
  if (warp < kProducers) {   // producer
    uint64_t policy = 0;
    if (ENGINE == kLsu16x4EvictLast) asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\n" : "=l"(policy));
    for (int j = 0; j < kTiles; ++j) {
      const int st = j % stages;
      if (j >= stages) mbar_wait(empty + st, (j / stages - 1) & 1);
      unsigned char* dst = stage0 + st * kTileBytes;
      if (ENGINE == kLsu16) {
        // lane l: row 8g + (l & 7) of each group g, chunks 4c + (l >> 3): 64 contiguous bytes of 8 rows a copy
        for (int g = 0; g < kTileRows / 8; ++g) {
          const int r = g * 8 + (lane & 7);
          const unsigned char* src = pool + static_cast<size_t>(rows[j * kTileRows + r]) * kRowBytes + (lane >> 3) * 16;
          unsigned char* d = dst + ((lane >> 3) * kTileRows + r) * 16;
#pragma unroll
          for (int c = 0; c < kRowBytes / 64; ++c)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(d + c * 4 * kTileRows * 16)),
                         "l"(src + c * 64)
                         : "memory");
        }
        mbar_arrive_when_copied(full + st);
        mbar_arrive(full + st);
      } else if (ENGINE == kLsu16x4 || ENGINE == kLsu16x4EvictLast) {
        // thread t of 128: row 16p + t/8 of each pass p, 16-byte chunk t%8 of each
        // 128-byte line of the row, so a warp's copy covers four whole lines
        const int t = threadIdx.x, sub = t & 7;
        constexpr int kPasses = kTileRows / 16;
        const unsigned char* src[kPasses];
#pragma unroll
        for (int p = 0; p < kPasses; ++p)
          src[p] = pool + static_cast<size_t>(rows[j * kTileRows + p * 16 + (t >> 3)]) * kRowBytes + sub * 16;
#pragma unroll
        for (int p = 0; p < kPasses; ++p) {
          const int r = p * 16 + (t >> 3);
#pragma unroll
          for (int line = 0; line < kRowBytes / 128; ++line) {
            const int c = line * 8 + sub;   // chunk-major: chunk c of row r at (c * rows + r) * 16
            const uint32_t d = smem_addr(dst + (c * kTileRows + r) * 16);
            if (ENGINE == kLsu16x4EvictLast)
              asm volatile("cp.async.cg.shared.global.L2::cache_hint.L2::256B [%0], [%1], 16, %2;\n" ::"r"(d),
                           "l"(src[p] + line * 128), "l"(policy)
                           : "memory");
            else
              asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;\n" ::"r"(d), "l"(src[p] + line * 128)
                           : "memory");
          }
        }
        mbar_arrive_when_copied(full + st);
        mbar_arrive(full + st);
      } else {
        if (lane == 0) mbar_arrive_expect_tx(full + st, kTileBytes);
        __syncwarp();
        for (int r = lane; r < kTileRows; r += 32)
          asm volatile(
              "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                  smem_addr(dst + r * kRowBytes)),
              "l"(pool + static_cast<size_t>(rows[j * kTileRows + r]) * kRowBytes), "r"(kRowBytes),
              "r"(smem_addr(full + st))
              : "memory");
      }
    }
  } else if (warp == kProducers) {   // consumer: waits for each tile, reads one word of it, releases the stage
    unsigned acc = 0;
    for (int j = 0; j < kTiles; ++j) {
      const int st = j % stages;
      mbar_wait(full + st, (j / stages) & 1);
      acc += reinterpret_cast<const unsigned*>(stage0 + st * kTileBytes)[lane];
      __syncwarp();
      if (lane == 0) mbar_arrive(empty + st);
    }
    if (acc == 0x12345678u) *sink = acc;   // keeps the reads
  }
}

template <int ENGINE>
float time_it(const unsigned char* pool, const int* idx, int bpt, int stages, unsigned* sink, unsigned char* flush,
              size_t flush_bytes) {
  auto k = gather<ENGINE>;
  CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int rep = 0; rep < 11; ++rep) {
    CHECK(cudaMemsetAsync(flush, rep, flush_bytes));
    CHECK(cudaEventRecord(a));
    k<<<kTokens * bpt, 32 * (producer_warps(ENGINE) + 1), kSmemBytes>>>(pool, idx, bpt, stages, sink);
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

}  // namespace

// With "evict-last": only that engine (kept apart: an illegal instruction
// ends the process's CUDA context, and the others' numbers would be lost).
int main(int argc, char** argv) {
  const bool evict_last_only = argc > 1 && std::string(argv[1]) == "evict-last";
  const size_t pool_rows = static_cast<size_t>(kTokens) * kContext;
  unsigned char* pool = nullptr;
  int* idx = nullptr;
  unsigned* sink = nullptr;
  unsigned char* flush = nullptr;
  const size_t flush_bytes = 256u << 20;
  CHECK(cudaMalloc(&pool, pool_rows * kRowBytes));
  CHECK(cudaMemset(pool, 1, pool_rows * kRowBytes));
  CHECK(cudaMalloc(&idx, sizeof(int) * kTokens * kTopk));
  CHECK(cudaMalloc(&sink, sizeof(unsigned)));
  CHECK(cudaMalloc(&flush, flush_bytes));
  // Row indices for both pools: each token's 2048 distinct rows of its own
  // context, or of the one context every token shares.
  std::vector<int> own(static_cast<size_t>(kTokens) * kTopk), shared(own.size());
  std::mt19937 rng(7);
  std::vector<int> perm(kContext);
  for (int t = 0; t < kTokens; ++t) {
    for (int i = 0; i < kContext; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    for (int i = 0; i < kTopk; ++i) {
      own[static_cast<size_t>(t) * kTopk + i] = t * kContext + perm[i];
      shared[static_cast<size_t>(t) * kTopk + i] = perm[i];
    }
  }
  int dev = 0, sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, dev));
  std::printf("%s, %d SMs; %d tokens x %d rows of %d B; own pool %.1f GB, shared pool %.1f MB; 64-row tiles; "
              "median of 10\n",
              prop.name, sms, kTokens, kTopk, kRowBytes, pool_rows * kRowBytes / 1e9, kContext * kRowBytes / 1e6);
  std::printf("%-10s %-7s %-13s %-6s %10s %12s %14s\n", "engine", "pool", "blocks/token", "stages", "us",
              "L2->SM TB/s", "per SM GB/s");
  for (int shared_pool = 0; shared_pool < 2; ++shared_pool) {
    const std::vector<int>& h = shared_pool ? shared : own;
    CHECK(cudaMemcpy(idx, h.data(), sizeof(int) * h.size(), cudaMemcpyHostToDevice));
    for (int engine = 0; engine < 4; ++engine) {
      if ((engine == kLsu16x4EvictLast) != evict_last_only) continue;
      for (int bpt : {1, 2})
        for (int stages : {2, 3}) {
          float us = 0;
          switch (engine) {
            case kLsu16: us = time_it<kLsu16>(pool, idx, bpt, stages, sink, flush, flush_bytes); break;
            case kLsu16x4: us = time_it<kLsu16x4>(pool, idx, bpt, stages, sink, flush, flush_bytes); break;
            case kLsu16x4EvictLast:
              us = time_it<kLsu16x4EvictLast>(pool, idx, bpt, stages, sink, flush, flush_bytes);
              break;
            default: us = time_it<kBulk>(pool, idx, bpt, stages, sink, flush, flush_bytes); break;
          }
          const double bytes = static_cast<double>(kTokens) * bpt * kTopk * kRowBytes;
          const int active = std::min(kTokens * bpt, sms);
          std::printf("%-10s %-7s %-13d %-6d %10.1f %12.2f %14.1f\n", kEngineName[engine],
                      shared_pool ? "shared" : "own", bpt, stages, us, bytes / us / 1e6, bytes / us / 1e3 / active);
          std::fflush(stdout);
        }
    }
  }
  return 0;
}
