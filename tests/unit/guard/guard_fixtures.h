#pragma once
// Sources and hand-built preprocessor output for the guard tests. The clean
// kernels are what a competent engineer writes (shared memory, inline PTX for
// mma and cp.async, warp shuffles, templates; a tiled CPU matmul): the guard must
// pass them untouched. The builder wraps an editable body in the markers GCC and
// nvcc print, with a "system header" and a protected package header around it
// that are full of forbidden tokens the guard must not see.
#include <sstream>
#include <string>
#include <vector>

#include "autoresearch/guard/guard.h"

namespace guard_test {

inline const char* kEditablePath = "/nonexistent/pkg/kernel.cu";
inline const char* kProtectedHeaderPath = "/nonexistent/pkg/problem.h";

// Types the package's protected header declares (Params, ar::LaunchPlan).
inline const char* kProblemHeader = R"SRC(#pragma once
namespace ar {
struct LaunchStage { unsigned grid[3]; unsigned block[3]; unsigned shared_bytes; unsigned reserved; };
struct LaunchPlan { int num_stages; int status; unsigned long long workspace_bytes; LaunchStage stage[4]; };
}
struct Params {
  const __nv_bfloat16* q;
  const __nv_bfloat16* kv;
  const int* indices;
  __nv_bfloat16* out;
  float* lse;
  float softmax_scale;
  int batch, heads, topk, clock_rate;
  void* workspace;
};
)SRC";

// Device code only (compiled to a cubin): the shape of a sparse-attention decode
// kernel, shortened.
inline const char* kCleanCudaKernel = R"SRC(namespace {

constexpr int kWarpSize = 32;
constexpr int kHeadsPerBlock = 64;
constexpr int kTileK = 64;
static constexpr int kStages = 3;
static const int kPad = 8;
__constant__ float c_exp2_table[4] = {1.0f, 2.0f, 4.0f, 8.0f};
__device__ const int kSwizzle[8] = {0, 1, 2, 3, 4, 5, 6, 7};

template <int N>
struct Fragment {
  float x[N];
  static constexpr int kSize = N;
  __device__ __forceinline__ void zero() {
#pragma unroll
    for (int i = 0; i < N; ++i) x[i] = 0.f;
  }
};

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = kWarpSize / 2; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = kWarpSize / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

static __device__ __forceinline__ unsigned lane_id() {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

template <typename T, int kThreads>
__device__ void block_copy(T* __restrict__ dst, const T* __restrict__ src, int n) {
  for (int i = threadIdx.x; i < n; i += kThreads) dst[i] = src[i];
}

}  // namespace

extern "C" __global__ void ar_plan(Params p, int num_sms, ar::LaunchPlan* plan) {
  const int blocks = p.batch * (p.heads / kHeadsPerBlock);
  plan->num_stages = 1;
  plan->status = (p.heads % kHeadsPerBlock == 0 && blocks <= num_sms * 64) ? 0 : 1;
  plan->workspace_bytes = 0;
  plan->stage[0] = ar::LaunchStage{{static_cast<unsigned>(blocks), 1, 1}, {128, 1, 1},
                                   (kStages * kTileK * 576 + kPad) * 2, 0};
}

extern "C" __global__ void __launch_bounds__(128) ar_stage0(Params p) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  __shared__ float row_max[kHeadsPerBlock];
  static __shared__ float warp_partial[4];
  auto* kv_tile = reinterpret_cast<__nv_bfloat16*>(smem_raw);
  const int clock_rate = p.clock_rate;  // a parameter, not a timer
  const int tid = threadIdx.x;
  const int b = blockIdx.x / (p.heads / kHeadsPerBlock);
  Fragment<8> acc;
  acc.zero();
  float m = -INFINITY;
  for (int k0 = 0; k0 < p.topk; k0 += kTileK) {
    const int idx = p.indices[b * p.topk + k0 + tid % kTileK];
    if (idx >= 0) cp_async_16(kv_tile + (tid % kTileK) * 576, p.kv + static_cast<long long>(idx) * 576);
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();
    float d[4] = {0.f, 0.f, 0.f, 0.f};
    unsigned a[4] = {0, 0, 0, 0}, bb[2] = {0, 0};
    mma_bf16_16816(d, a, bb);
    m = fmaxf(m, warp_max(d[0] * p.softmax_scale * c_exp2_table[kSwizzle[tid & 7] & 3]));
    __syncthreads();
  }
  const float s = warp_sum(acc.x[0] + static_cast<float>(clock_rate) * 0.f);
  if (lane_id() == 0) warp_partial[tid / kWarpSize] = s;
  if (tid < kHeadsPerBlock) row_max[tid] = m;
  __syncthreads();
  block_copy<float, 128>(p.lse + b * kHeadsPerBlock, row_max, kHeadsPerBlock);
  if (tid == 0) p.out[b] = __float2bfloat16(warp_partial[0]);
}
)SRC";

// A host kernel (CPU package): a shared object exporting ar_kernel.
inline const char* kCleanCpuMatmul = R"SRC(namespace {

struct Params {
  const float* a;
  const float* b;
  float* c;
  int m, n, k;
};

constexpr int kTileM = 64;
constexpr int kTileN = 64;
constexpr int kTileK = 32;
static const float kAlpha = 1.0f;
static constexpr const char* kName = "matmul: std::thread-free, no clock() here";

static inline float dot(const float* __restrict a, const float* __restrict b, int n) {
  float s = 0.f;
#pragma omp simd reduction(+ : s)
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

template <int BM, int BN, int BK>
static void tile(const Params& p, int i0, int j0) {
  alignas(64) float acc[BM][BN] = {};
  alignas(64) float bt[BN][BK];
  for (int k0 = 0; k0 < p.k; k0 += BK) {
    const int kn = std::min(BK, p.k - k0);
    for (int j = 0; j < BN && j0 + j < p.n; ++j)
      for (int kk = 0; kk < kn; ++kk) bt[j][kk] = p.b[static_cast<size_t>(k0 + kk) * p.n + j0 + j];
#pragma GCC unroll 4
    for (int i = 0; i < BM && i0 + i < p.m; ++i)
      for (int j = 0; j < BN && j0 + j < p.n; ++j)
        acc[i][j] += dot(p.a + static_cast<size_t>(i0 + i) * p.k + k0, bt[j], kn);
  }
  for (int i = 0; i < BM && i0 + i < p.m; ++i)
    for (int j = 0; j < BN && j0 + j < p.n; ++j) p.c[static_cast<size_t>(i0 + i) * p.n + j0 + j] = kAlpha * acc[i][j];
}

}  // namespace

extern "C" void ar_kernel(const void* params) {
  const Params& p = *static_cast<const Params*>(params);
  static_assert(kTileM % 8 == 0, "tile must be a multiple of 8 (no clock64 or getenv in here)");
  std::vector<int> rows;
  rows.reserve(static_cast<size_t>(p.m / kTileM + 1));
  for (int i0 = 0; i0 < p.m; i0 += kTileM) rows.push_back(i0);
  for (int i0 : rows)
    for (int j0 = 0; j0 < p.n; j0 += kTileN) tile<kTileM, kTileN, kTileK>(p, i0, j0);
}
)SRC";

// What a system header looks like to the guard: every forbidden thing at once.
inline const char* kSystemHeader = R"SRC(namespace std {
class thread { public: template <class F> explicit thread(F f); void join(); };
static int __once_cache;
inline long long __clock_now() { return clock64(); }
extern "C" int pthread_create(void*, void*, void* (*)(void*), void*);
__attribute__((constructor)) static void __init_runtime() {}
namespace chrono { struct steady_clock { static long now(); }; }
}
extern "C" char* getenv(const char*) noexcept;
typedef struct CUstream_st* cudaStream_t;
extern "C" int cudaStreamCreate(cudaStream_t*);
extern "C" int cudaDeviceSynchronize();
int errno_cache;
thread_local int __tls;
#pragma omp parallel
asm(".section .init_array");
inline void __spin() { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(__tls)); }
)SRC";

struct Build {
  std::string editable_name = kEditablePath;  // as the marker prints it
  bool system_header = true;
  bool protected_header = true;
};

// GCC-style -E output: prologue, the system header and the protected package
// header entered from the editable file's first line, then the editable body
// starting at line 1. A body line "//@system" is replaced by a second include
// of the system header, after which the markers resume on the next line.
inline std::string preprocessed(const std::string& body, const Build& b = {}) {
  std::ostringstream o;
  const std::string ed = "\"" + b.editable_name + "\"";
  o << "# 0 " << ed << "\n# 0 \"<built-in>\"\n# 0 \"<command-line>\"\n"
    << "# 1 \"/usr/include/stdc-predef.h\" 1 3 4\n# 0 \"<command-line>\" 2\n# 1 " << ed << "\n";
  if (b.system_header)
    o << "# 1 \"/usr/include/c++/12/thread\" 1 3\n# 30 \"/usr/include/c++/12/thread\" 3\n" << kSystemHeader
      << "# 1 " << ed << " 2\n";
  if (b.protected_header)
    o << "# 1 \"" << kProtectedHeaderPath << "\" 1\n" << kProblemHeader << "static int harness_only_state;\n"
      << "# 1 " << ed << " 2\n";
  std::istringstream in(body);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line == "//@system") {
      o << "# 1 \"/usr/include/cuda_runtime.h\" 1 3 4\n" << kSystemHeader << "# " << n + 1 << " " << ed << " 2\n";
      continue;
    }
    o << line << "\n";
  }
  return o.str();
}

// nvcc -E prints CUDA's keywords as attributes; the guard must read both.
inline std::string as_nvcc_prints_it(std::string s) {
  const std::vector<std::pair<std::string, std::string>> kSpell = {
      {"__global__", "__attribute__((global))"},
      {"__device__", "__attribute__((device))"},
      {"__shared__", "__attribute__((shared))"},
      {"__constant__", "__attribute__((constant))"},
      {"__managed__", "__attribute__((managed))"},
      {"__forceinline__", "__inline__ __attribute__((always_inline))"},
      {"__launch_bounds__(128)", "__attribute__((launch_bounds(128)))"},
      {"__align__(16)", "__attribute__((aligned(16)))"}};
  for (const auto& [from, to] : kSpell)
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
      s.replace(at, from.size(), to);
  return s;
}

inline ar::GuardResult scan(const std::string& body, ar::Backend backend = ar::Backend::Cuda, const Build& b = {}) {
  return ar::scan_preprocessed_source(preprocessed(body, b), {kEditablePath}, backend);
}

inline bool has_rule(const ar::GuardResult& r, const std::string& rule) {
  for (const auto& f : r.findings)
    if (f.rule == rule) return true;
  return false;
}

inline std::string describe(const ar::GuardResult& r) {
  std::string s;
  for (const auto& f : r.findings) s += f.rule + " @ " + f.where + ": " + f.excerpt + "\n";
  return s.empty() ? "(no findings)" : s;
}

}  // namespace guard_test
