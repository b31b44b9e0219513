// How fast does the row path's S^T run as a register-operand (RS) wgmma chain, by pipeline shape?
//
// Why: the row path computes S^T = K Q^T with K's fragments loaded by ldmatrix from the row-major stage
// (A in registers) and Q from shared memory (B), 36 k-steps a tile. Its tile probe
// (tile-probe-ideas17-2026-12-03.txt) measured S^T at 1.9 us a tile, 104 clocks a k-step, and about the
// same at H=16, where the other warpgroup idles. The shared-memory form of the same product (wgmma_rate,
// s32x2) takes 48 clocks a k-step with both warpgroups. This separates what the chain's
// shape costs: the wgmma issue rate with A in registers, the ldmatrix latency, and how many groups the
// fragment buffers let stay in flight.
//
// One block of two warpgroups per SM, as the kernel runs; each warpgroup repeats one tile's S^T (64 keys
// x 32 heads, or one warpgroup 64 keys x 64 heads) on the kernel's layouts: K rows 1168 bytes apart in
// groups of 8 (rg_row), Q chunk-major (16-byte chunk columns of all 64 heads). Clocks per tile from
// clock64, mean over 132 blocks; each mode's S^T checked against a host reference. The clocks compare
// shapes only: the fastest mode did more multiply-adds a clock than the dense bf16 rate allows
// (rs-chain-probe-2026-12-06-h100.txt), so clock64 here does not count SM cycles one to one.
//
// Modes: pipe G x B   groups of G k-steps, B fragment buffers: after a group is committed, wait until
//                     the group before it is done (wait_group 1), refill its buffer with the group
//                     B - 1 ahead, fence (B = 2, G = 3 is the kernel's rg_qk)
//        upfront      all 36 k-steps' fragments by ldmatrix, then 36 wgmmas, one wait
//        fixed        the fragments loaded once before the timing loop: the RS wgmma chain alone
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int kHeads = 64, kDim = 576, kKeys = 64, kSteps = kDim / 16;
constexpr int kRowBytes = kDim * 2, kRowPitch = kRowBytes + 16, kGroupPitch = 7 * kRowPitch + kRowBytes;
constexpr int kQBytes = kHeads * kRowBytes, kKBytes = kKeys / 8 * kGroupPitch;

#include "../gather_probe/probe_ptx.cuh"
#include "../gather_probe/probe_wgmma.cuh"

__host__ __device__ inline int rg_row(int r) { return (r >> 3) * kGroupPitch + (r & 7) * kRowPitch; }
__host__ __device__ inline int q_offset(int h, int c) { return ((c >> 3) * kHeads + h) * 16 + (c & 7) * 2; }

__device__ inline void ldsm_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
template <int NACC>
__device__ inline void fence_regs(float (&r)[NACC]) {
#pragma unroll
  for (int e = 0; e < NACC; ++e) asm volatile("" : "+f"(r[e])::"memory");
}

__device__ inline void rs(float (&d)[16], const uint32_t (&a)[4], uint64_t b, int acc) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
      "%12, %13, %14, %15}, {%16, %17, %18, %19}, %20, p, 1, 1, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(acc)
      : "memory");
}
__device__ inline void rs(float (&d)[32], const uint32_t (&a)[4], uint64_t b, int acc) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
      "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "{%32, %33, %34, %35}, %36, p, 1, 1, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(acc)
      : "memory");
}

enum Kind { PIPE, UPFRONT, FIXED };

// One tile's S^T: groups of G k-steps, B buffers (PIPE), as the kernel's rg_qk when G = 3, B = 2.
// dq: B of k-step 0; a k-step is two chunk columns (2 x 64 heads x 16 B) further on.
template <int NACC, int G, int B>
__device__ inline void s_pipe(float (&s)[NACC], uint32_t k_lane, uint64_t dq) {
  constexpr int NG = kSteps / G;
  static_assert(kSteps % G == 0, "whole groups");
  uint32_t a[B][G][4];
#pragma unroll
  for (int b = 0; b + 1 < B; ++b)
#pragma unroll
    for (int c = 0; c < G; ++c)
      if (b < NG) ldsm_x4(a[b][c], k_lane + (b * G + c) * 32);
  wgmma_fence();
#pragma unroll
  for (int grp = 0; grp < NG; ++grp) {
#pragma unroll
    for (int c = 0; c < G; ++c) {
      const int kk = grp * G + c;
      rs(s, a[grp % B][c], dq + ((kk * 2 * kHeads * 16) >> 4), kk > 0);
    }
    wgmma_commit();
    const int next = grp + B - 1;   // the group whose fragments go into the buffer group grp - 1 read
    if (next < NG) {
      wgmma_wait<1>();
#pragma unroll
      for (int c = 0; c < G; ++c) ldsm_x4(a[next % B][c], k_lane + (next * G + c) * 32);
      wgmma_fence();
    }
  }
  wgmma_wait<0>();
  fence_regs(s);
}

template <int NACC>
__device__ inline void s_fixed(float (&s)[NACC], const uint32_t (&a)[kSteps][4], uint64_t dq) {
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < kSteps; ++kk) rs(s, a[kk], dq + ((kk * 2 * kHeads * 16) >> 4), kk > 0);
  wgmma_commit();
  wgmma_wait<0>();
  fence_regs(s);
}

// N: heads a warpgroup scores (32: both warpgroups, as the kernel; 64: warpgroup 0 alone, as idea 49).
// WGS: warpgroups that work (1: warpgroup 1 idles, to see what sharing the tensor cores costs).
template <int N, int WGS, int KIND, int G, int B>
__global__ void __launch_bounds__(256, 1)
    probe(const __nv_bfloat16* gq, const __nv_bfloat16* gk, float* s_out, long long* clocks, int iters) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  unsigned char* q = smem;
  unsigned char* k = q + kQBytes;
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t4 = lane & 3, wg = warp >> 2;
  const int wl = warp & 3;
  for (int e = tid; e < kHeads * kDim; e += 256) {
    const int r = e / kDim, c = e % kDim;
    *reinterpret_cast<__nv_bfloat16*>(q + q_offset(r, c)) = gq[e];
    *reinterpret_cast<__nv_bfloat16*>(k + rg_row(r) + 2 * c) = gk[e];
  }
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  constexpr int NACC = N / 2;
  float s[NACC];
#pragma unroll
  for (int i = 0; i < NACC; ++i) s[i] = 0.f;
  const bool works = wg < WGS;
  const uint32_t k_lane = smem_addr(k) + rg_row(16 * wl + (lane & 15)) + (lane >> 4) * 16;
  // B of S^T: this warpgroup's heads, K-major: chunk columns LBO apart, 8 heads (128 B) apart in N
  const uint64_t dq = wgmma_desc(smem_addr(q) + (N == 32 ? wg * 32 * 16 : 0), kHeads * 16, 128);
  uint32_t fixed[KIND == FIXED ? kSteps : 1][4];
  if constexpr (KIND == FIXED)
#pragma unroll
    for (int kk = 0; kk < kSteps; ++kk) ldsm_x4(fixed[kk], k_lane + kk * 32);
  long long t0 = clock64();
  if (works)
    for (int it = 0; it < iters; ++it) {
      if constexpr (KIND == PIPE) s_pipe<NACC, G, B>(s, k_lane, dq);
      if constexpr (KIND == UPFRONT) {
        uint32_t a[kSteps][4];
#pragma unroll
        for (int kk = 0; kk < kSteps; ++kk) ldsm_x4(a[kk], k_lane + kk * 32);
        s_fixed(s, a, dq);
      }
      if constexpr (KIND == FIXED) s_fixed(s, fixed, dq);
    }
  long long t1 = clock64();
  if (lane == 0 && wl == 0) clocks[blockIdx.x * 2 + wg] = (t1 - t0) / iters;
  if (blockIdx.x != 0 || !works) return;
  // d[4j + e]: key 16 wl + g + 8 (e >> 1), head 8j + 2 t4 + (e & 1) of the warpgroup's heads
  for (int j = 0; j < N / 8; ++j)
    for (int e = 0; e < 4; ++e) {
      const int key = 16 * wl + g + 8 * (e >> 1), h = (N == 32 ? wg * 32 : 0) + 8 * j + 2 * t4 + (e & 1);
      s_out[h * kKeys + key] = s[4 * j + e];
    }
}

static float bf(__nv_bfloat16 x) { return __bfloat162float(x); }

template <int N, int WGS, int KIND, int G = 1, int B = 1>
static void run(const char* name, const __nv_bfloat16* dq, const __nv_bfloat16* dk, const std::vector<float>& s_ref) {
  const int blocks = 132, iters = 2000;
  float* ds;
  long long* dclk;
  CHECK(cudaMalloc(&ds, kHeads * kKeys * 4));
  CHECK(cudaMalloc(&dclk, blocks * 2 * sizeof(long long)));
  CHECK(cudaMemset(ds, 0, kHeads * kKeys * 4));
  CHECK(cudaMemset(dclk, 0, blocks * 2 * sizeof(long long)));
  const int smem = kQBytes + kKBytes + 1024;
  auto kern = probe<N, WGS, KIND, G, B>;
  CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  kern<<<blocks, 256, smem>>>(dq, dk, ds, dclk, iters);
  CHECK(cudaDeviceSynchronize());
  std::vector<long long> clk(blocks * 2);
  std::vector<float> s(kHeads * kKeys);
  CHECK(cudaMemcpy(clk.data(), dclk, clk.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(s.data(), ds, s.size() * 4, cudaMemcpyDeviceToHost));
  double c0 = 0, c1 = 0, err = 0;
  for (int b = 0; b < blocks; ++b) c0 += clk[2 * b], c1 += clk[2 * b + 1];
  const int checked = N == 32 && WGS == 1 ? 32 : kHeads;   // heads the working warpgroups scored
  for (int i = 0; i < checked * kKeys; ++i) err = std::fmax(err, std::fabs(s[i] - s_ref[i]));
  const double per_tile = (WGS == 2 ? std::fmax(c0, c1) : c0) / blocks;
  std::printf("%-34s clocks/tile wg0 %6.0f wg1 %6.0f  per k-step %5.1f  (%.2f us at 1980 MHz)  max err %.3g\n", name,
              c0 / blocks, c1 / blocks, per_tile / kSteps, per_tile / 1980.0, err);
  cudaFree(ds);
  cudaFree(dclk);
}

int main() {
  std::vector<__nv_bfloat16> q(kHeads * kDim), k(kKeys * kDim);
  srand(1);
  auto rnd = [] { return (rand() % 2001 - 1000) / 1000.f; };
  for (auto& x : q) x = __float2bfloat16(rnd());
  for (auto& x : k) x = __float2bfloat16(rnd());
  std::vector<float> s_ref(kHeads * kKeys);
  for (int h = 0; h < kHeads; ++h)
    for (int j = 0; j < kKeys; ++j) {
      double a = 0;
      for (int c = 0; c < kDim; ++c) a += bf(q[h * kDim + c]) * bf(k[j * kDim + c]);
      s_ref[h * kKeys + j] = static_cast<float>(a);
    }
  __nv_bfloat16 *dq, *dk;
  CHECK(cudaMalloc(&dq, q.size() * 2));
  CHECK(cudaMalloc(&dk, k.size() * 2));
  CHECK(cudaMemcpy(dq, q.data(), q.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dk, k.data(), k.size() * 2, cudaMemcpyHostToDevice));
  std::printf("S^T of a tile: 64 keys x 64 heads x 576 dims, 36 k-steps; the kernel: n32, both warpgroups, pipe 3 x 2\n");
  run<32, 2, PIPE, 3, 2>("n32 x2 pipe 3x2 (the kernel)", dq, dk, s_ref);
  run<32, 1, PIPE, 3, 2>("n32 x1 pipe 3x2 (wg1 idle)", dq, dk, s_ref);
  run<32, 2, FIXED>("n32 x2 fixed (no ldmatrix)", dq, dk, s_ref);
  run<32, 1, FIXED>("n32 x1 fixed (no ldmatrix)", dq, dk, s_ref);
  run<32, 2, UPFRONT>("n32 x2 upfront (36 ldmatrix, 36 mma)", dq, dk, s_ref);
  run<32, 2, PIPE, 1, 2>("n32 x2 pipe 1x2", dq, dk, s_ref);
  run<32, 2, PIPE, 2, 2>("n32 x2 pipe 2x2", dq, dk, s_ref);
  run<32, 2, PIPE, 6, 2>("n32 x2 pipe 6x2", dq, dk, s_ref);
  run<32, 2, PIPE, 2, 3>("n32 x2 pipe 2x3", dq, dk, s_ref);
  run<32, 2, PIPE, 3, 3>("n32 x2 pipe 3x3", dq, dk, s_ref);
  run<32, 2, PIPE, 2, 4>("n32 x2 pipe 2x4", dq, dk, s_ref);
  run<32, 2, PIPE, 4, 3>("n32 x2 pipe 4x3", dq, dk, s_ref);
  run<32, 2, PIPE, 1, 4>("n32 x2 pipe 1x4", dq, dk, s_ref);
  run<64, 1, PIPE, 4, 2>("n64 x1 pipe 4x2 (idea 49's scorer)", dq, dk, s_ref);
  run<64, 1, PIPE, 2, 3>("n64 x1 pipe 2x3", dq, dk, s_ref);
  run<64, 1, PIPE, 3, 3>("n64 x1 pipe 3x3", dq, dk, s_ref);
  run<64, 1, FIXED>("n64 x1 fixed (no ldmatrix)", dq, dk, s_ref);
  run<64, 1, UPFRONT>("n64 x1 upfront", dq, dk, s_ref);
  return 0;
}
