// How fast can one SM gather sparse_mla's KV rows, and through which engine?
// (kernels/sparse_mla/results/RESULTS.md, "2026-12-02 (afternoon)": the kernel's
// gathers run at about 14 GB/s a SM whatever the number of issuing warps, the
// request size or the stages; is that the 16-byte cp.async path's limit?)
//
// The access pattern of the b128_32k workload without any math: a block per
// (token, head group) walks the token's 2048 random rows of its own 32k-row
// context (a 4.8 GB pool, BF16 rows of 1152 bytes) in 64-row tiles through
// shared-memory stages, a producer warp filling them and a consumer warp
// releasing each one as soon as it has landed. 222 KB of shared memory per
// block keeps one block per SM, as in the kernel. Engines:
//   lsu16   16-byte cp.async, four lanes per row (the kernel's producer today)
//   bulk    one cp.async.bulk per row (1152 bytes, the bulk-copy engine),
//           counted on the stage's mbarrier by complete_tx
// Each engine runs with 1 and 2 blocks per token (h16-like: each row fetched
// once; b128-like: two blocks fetch the same rows) and 2 or 3 stages.
// Prints the median of 10 launches, each after a 256 MB L2 flush.
//
//   nvcc -std=c++17 -O3 -arch=sm_90a gather_probe.cu -o gather_probe && ./gather_probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace {

constexpr int kRowBytes = 1152;
constexpr int kTopk = 2048;
constexpr int kContext = 32768;
constexpr int kTokens = 128;
constexpr int kTileRows = 64;
constexpr int kTileBytes = kTileRows * kRowBytes;
constexpr int kSmemBytes = 222 * 1024;

#define CHECK(x)                                                                                 \
  do {                                                                                           \
    cudaError_t e_ = (x);                                                                        \
    if (e_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("{\n.reg .b64 s;\nmbarrier.arrive.shared::cta.b64 s, [%0];\n}\n" ::"r"(smem_addr(bar)) : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, unsigned bytes) {
  asm volatile("{\n.reg .b64 s;\nmbarrier.arrive.expect_tx.shared::cta.b64 s, [%0], %1;\n}\n" ::"r"(smem_addr(bar)),
               "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbar_arrive_when_copied(uint64_t* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(smem_addr(bar)) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, unsigned parity) {
  asm volatile(
      "{\n.reg .pred done;\nwait_again:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_again;\n}\n" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}

enum Engine { kLsu16 = 0, kBulk = 1 };

// grid: kTokens * blocks_per_token blocks; block: 2 warps (producer, consumer).
template <int ENGINE>
__global__ void __launch_bounds__(64, 1)
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
      mbar_init(full + s, ENGINE == kLsu16 ? 64 : 1);
      mbar_init(empty + s, 1);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if (warp == 0) {   // producer
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
  } else {   // consumer: waits for each tile, reads one word of it, releases the stage
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
    k<<<kTokens * bpt, 64, kSmemBytes>>>(pool, idx, bpt, stages, sink);
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

int main() {
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
  std::vector<int> h(static_cast<size_t>(kTokens) * kTopk);
  std::mt19937 rng(7);
  for (int t = 0; t < kTokens; ++t) {   // 2048 distinct rows of the token's own context
    std::vector<int> perm(kContext);
    for (int i = 0; i < kContext; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    for (int i = 0; i < kTopk; ++i) h[static_cast<size_t>(t) * kTopk + i] = t * kContext + perm[i];
  }
  CHECK(cudaMemcpy(idx, h.data(), sizeof(int) * h.size(), cudaMemcpyHostToDevice));
  int dev = 0, sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, dev));
  std::printf("%s, %d SMs; %d tokens x %d rows of %d B from a %.1f GB pool; 64-row tiles; median of 10\n", prop.name,
              sms, kTokens, kTopk, kRowBytes, pool_rows * kRowBytes / 1e9);
  std::printf("%-6s %-16s %-6s %10s %12s %14s\n", "engine", "blocks/token", "stages", "us", "L2->SM TB/s",
              "per SM GB/s");
  for (int engine = 0; engine < 2; ++engine)
    for (int bpt : {1, 2})
      for (int stages : {2, 3}) {
        const float us = engine == kLsu16 ? time_it<kLsu16>(pool, idx, bpt, stages, sink, flush, flush_bytes)
                                          : time_it<kBulk>(pool, idx, bpt, stages, sink, flush, flush_bytes);
        const double bytes = static_cast<double>(kTokens) * bpt * kTopk * kRowBytes;
        const int active = std::min(kTokens * bpt, sms);
        std::printf("%-6s %-16d %-6d %10.1f %12.2f %14.1f\n", engine == kLsu16 ? "lsu16" : "bulk", bpt, stages, us,
                    bytes / us / 1e6, bytes / us / 1e3 / active);
      }
  return 0;
}
