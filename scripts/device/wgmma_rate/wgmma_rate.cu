// How fast do the tensor cores do sparse_mla's tile math from shared memory, by
// operand layout? One block of two warpgroups per SM (as the attend kernel runs),
// each repeating one tile's wgmma work; SM clocks per tile, averaged over 132 blocks.
//
// Why: the chunk-major path's tile probe (tile-probe-chunk-major-2026-12-03.txt)
// measured S = Q K^T and its softmax at 3.5 us a tile, against ~0.6 us of tensor
// work by arithmetic. The kernel's operands are in the no-swizzle ("interleave")
// layout, 16-byte core-matrix rows; FlashMLA and CUTLASS use the 128-byte swizzle.
// This separates the instructions' own rate (per layout) from the rest of the tile.
//
// Modes (64 heads x 64 keys x 576 dims for S, 64 x 512 x 64 keys for P V):
//   s32x2  both warpgroups, S of 32 keys each (36 m64n32k16): the kernel's S today
//   s64x1  the first warpgroup alone, S of all 64 keys (36 m64n64k16)
//   pv     both warpgroups, P V for 256 value columns each (4 k-steps x 2 m64n128k16)
//   s32pv  s32x2 then pv, each waited for (the kernel's tile without the softmax)
//   s64pv  s64x1 then pv by both
// Each is checked against a host reference on random inputs.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int kRows = 64, kDim = 576, kDimV = 512, kKeys = 64;
constexpr int kQBytes = kRows * kDim * 2, kKBytes = kKeys * kDim * 2, kPBytes = kRows * kKeys * 2;

#include "../gather_probe/probe_ptx.cuh"
#include "../gather_probe/probe_wgmma.cuh"

// Byte offset of element (r, c) of a tile of `rows` rows (K-major: c along the row).
// Interleave: 8-element chunk columns, each all rows x 16 B. Swizzle 128B: 64-column
// blocks, each rows x 128 B, the 16-byte chunk index XOR (row % 8) (the tile 1024-aligned).
template <bool SW>
__host__ __device__ inline int elem_offset(int rows, int r, int c) {
  if (SW) return (c >> 6) * rows * 128 + r * 128 + ((((c >> 3) & 7) ^ (r & 7)) << 4) + (c & 7) * 2;
  return (((c >> 3) * rows + r) * 8 + (c & 7)) * 2;
}


__device__ inline void mma_n32(float (&d)[16], uint64_t a, uint64_t b, int acc) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
      "%12, %13, %14, %15}, %16, %17, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
      : "l"(a), "l"(b), "r"(acc)
      : "memory");
}
__device__ inline void mma_n64(float (&d)[32], uint64_t a, uint64_t b, int acc) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
      "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, "
      "%33, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(a), "l"(b), "r"(acc)
      : "memory");
}
// B transposed on the way in (MN-major V)
__device__ inline void mma_n128_tb(float (&d)[64], uint64_t a, uint64_t b, int acc) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
      "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, "
      "%34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, "
      "%56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),
        "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
        "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),
        "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(a), "l"(b), "r"(acc)
      : "memory");
}

enum Mode { S32X2, S64X1, PV, S32PV, S64PV };

template <bool SW>
struct Descs {
  // K-major operand of `rows` rows at byte address a, k-step kk (16 columns)
  __device__ static uint64_t kmajor(uint32_t a, int rows, int kk) {
    if (SW) return wgmma_desc(a + (kk >> 2) * rows * 128 + (kk & 3) * 32, 16, 1024, 1);
    return wgmma_desc(a + kk * 2 * rows * 16, rows * 16, 128, 0);
  }
  // V (MN-major, value columns n0.. of the key tile at a), k-step kk (16 keys); swap: LBO and SBO exchanged
  __device__ static uint64_t vmajor(uint32_t a, int n0, int kk, bool swap) {
    if (SW) {
      const unsigned lbo = swap ? 1024 : kKeys * 128, sbo = swap ? kKeys * 128 : 1024;
      return wgmma_desc(a + (n0 >> 6) * kKeys * 128 + kk * 2 * 1024, lbo, sbo, 1);
    }
    return wgmma_desc(a + (n0 >> 3) * kKeys * 16 + kk * 256, 128, kKeys * 16, 0);
  }
};

template <bool SW, int MODE>
__global__ void __launch_bounds__(256, 1)
    rate(const __nv_bfloat16* gq, const __nv_bfloat16* gk, const __nv_bfloat16* gp, float* s_out, float* o_out,
         long long* clocks, int iters, int vswap) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  unsigned char* q = smem;
  unsigned char* k = q + kQBytes;
  unsigned char* pm = k + kKBytes;
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t4 = lane & 3, wg = warp >> 2;
  for (int e = tid; e < kRows * kDim; e += 256) {
    const int r = e / kDim, c = e % kDim;
    *reinterpret_cast<__nv_bfloat16*>(q + elem_offset<SW>(kRows, r, c)) = gq[e];
    *reinterpret_cast<__nv_bfloat16*>(k + elem_offset<SW>(kKeys, r, c)) = gk[e];
  }
  for (int e = tid; e < kRows * kKeys; e += 256)
    *reinterpret_cast<__nv_bfloat16*>(pm + elem_offset<SW>(kRows, e / kKeys, e % kKeys)) = gp[e];
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  const uint32_t qa = smem_addr(q), ka = smem_addr(k), pa = smem_addr(pm);
  float s32[16], s64[32], o[2][64];
  for (int i = 0; i < 16; ++i) s32[i] = 0.f;
  for (int i = 0; i < 32; ++i) s64[i] = 0.f;
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 64; ++i) o[h][i] = 0.f;
  const bool do_s32 = MODE == S32X2 || MODE == S32PV;
  const bool do_s64 = (MODE == S64X1 || MODE == S64PV) && wg == 0;
  const bool do_pv = MODE == PV || MODE == S32PV || MODE == S64PV;
  long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
    if (do_s32) {
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kDim / 16; ++kk)
        mma_n32(s32, Descs<SW>::kmajor(qa, kRows, kk),
                Descs<SW>::kmajor(ka + (SW ? wg * 32 * 128 : wg * 32 * 16), kKeys, kk), kk > 0);
      wgmma_commit();
      wgmma_wait<0>();
    }
    if (do_s64) {
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kDim / 16; ++kk) mma_n64(s64, Descs<SW>::kmajor(qa, kRows, kk), Descs<SW>::kmajor(ka, kKeys, kk), kk > 0);
      wgmma_commit();
      wgmma_wait<0>();
    }
    if (MODE == S64PV) asm volatile("bar.sync 1, 256;\n" ::: "memory");   // P of the tile for both
    if (do_pv) {
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kKeys / 16; ++kk) {
        mma_n128_tb(o[0], Descs<SW>::kmajor(pa, kRows, kk), Descs<SW>::vmajor(ka, wg * 256, kk, vswap), kk > 0);
        mma_n128_tb(o[1], Descs<SW>::kmajor(pa, kRows, kk), Descs<SW>::vmajor(ka, wg * 256 + 128, kk, vswap), kk > 0);
      }
      wgmma_commit();
      wgmma_wait<0>();
    }
  }
  long long t1 = clock64();
  if (lane == 0 && (warp & 3) == 0) clocks[blockIdx.x * 2 + wg] = (t1 - t0) / iters;
  if (blockIdx.x != 0) return;
  const int r0 = (warp & 3) * 16 + g;
  for (int e = 0; e < 4; ++e) {
    const int r = r0 + 8 * (e >> 1);
    if (do_s32)
      for (int j = 0; j < 4; ++j) s_out[r * kKeys + wg * 32 + 8 * j + 2 * t4 + (e & 1)] = s32[4 * j + e];
    if (do_s64)
      for (int j = 0; j < 8; ++j) s_out[r * kKeys + 8 * j + 2 * t4 + (e & 1)] = s64[4 * j + e];
    if (do_pv)
      for (int h = 0; h < 2; ++h)
        for (int j = 0; j < 16; ++j) o_out[r * kDimV + wg * 256 + h * 128 + 8 * j + 2 * t4 + (e & 1)] = o[h][4 * j + e];
  }
}

static float bf(__nv_bfloat16 x) { return __bfloat162float(x); }

template <bool SW, int MODE>
static void run(const char* name, const __nv_bfloat16* dq, const __nv_bfloat16* dk, const __nv_bfloat16* dp,
                const std::vector<float>& s_ref, const std::vector<float>& o_ref, int vswap) {
  const int blocks = 132, iters = 2000;
  float *ds, *dout;
  long long* dclk;
  CHECK(cudaMalloc(&ds, kRows * kKeys * 4));
  CHECK(cudaMalloc(&dout, kRows * kDimV * 4));
  CHECK(cudaMalloc(&dclk, blocks * 2 * sizeof(long long)));
  CHECK(cudaMemset(ds, 0, kRows * kKeys * 4));
  CHECK(cudaMemset(dout, 0, kRows * kDimV * 4));
  CHECK(cudaMemset(dclk, 0, blocks * 2 * sizeof(long long)));
  const int smem = kQBytes + kKBytes + kPBytes + 1024;
  CHECK(cudaFuncSetAttribute(rate<SW, MODE>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  rate<SW, MODE><<<blocks, 256, smem>>>(dq, dk, dp, ds, dout, dclk, iters, vswap);
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    std::printf("%-22s %s: %s\n", name, SW ? "swizzle-128B" : "interleave  ", cudaGetErrorString(err));
    std::exit(1);
  }
  std::vector<long long> clk(blocks * 2);
  std::vector<float> s(kRows * kKeys), o(kRows * kDimV);
  CHECK(cudaMemcpy(clk.data(), dclk, clk.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(s.data(), ds, s.size() * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(o.data(), dout, o.size() * 4, cudaMemcpyDeviceToHost));
  double c0 = 0, c1 = 0;
  for (int b = 0; b < blocks; ++b) c0 += clk[2 * b], c1 += clk[2 * b + 1];
  double se = 0, oe = 0;
  const bool has_s = MODE != PV, has_o = MODE == PV || MODE == S32PV || MODE == S64PV;
  if (has_s)
    for (int i = 0; i < kRows * kKeys; ++i) se = std::fmax(se, std::fabs(s[i] - s_ref[i]));
  if (has_o)
    for (int i = 0; i < kRows * kDimV; ++i) oe = std::fmax(oe, std::fabs(o[i] - o_ref[i]));
  std::printf("%-22s %s: clocks/tile wg0 %7.0f wg1 %7.0f  (%.2f us at 1980 MHz)  max err S %.3g O %.3g\n", name,
              SW ? "swizzle-128B" : "interleave  ", c0 / blocks, c1 / blocks, std::fmax(c0, c1) / blocks / 1980.0,
              has_s ? se : 0.0, has_o ? oe : 0.0);
  cudaFree(ds);
  cudaFree(dout);
  cudaFree(dclk);
}

int main() {
  std::vector<__nv_bfloat16> q(kRows * kDim), k(kKeys * kDim), p(kRows * kKeys);
  srand(1);
  auto rnd = [] { return (rand() % 2001 - 1000) / 1000.f; };
  for (auto& x : q) x = __float2bfloat16(rnd());
  for (auto& x : k) x = __float2bfloat16(rnd());
  for (auto& x : p) x = __float2bfloat16(std::fabs(rnd()));
  std::vector<float> s_ref(kRows * kKeys), o_ref(kRows * kDimV);
  for (int r = 0; r < kRows; ++r)
    for (int j = 0; j < kKeys; ++j) {
      double a = 0;
      for (int c = 0; c < kDim; ++c) a += bf(q[r * kDim + c]) * bf(k[j * kDim + c]);
      s_ref[r * kKeys + j] = static_cast<float>(a);
    }
  for (int r = 0; r < kRows; ++r)
    for (int n = 0; n < kDimV; ++n) {
      double a = 0;
      for (int j = 0; j < kKeys; ++j) a += bf(p[r * kKeys + j]) * bf(k[j * kDim + n]);
      o_ref[r * kDimV + n] = static_cast<float>(a);
    }
  __nv_bfloat16 *dq, *dk, *dp;
  CHECK(cudaMalloc(&dq, q.size() * 2));
  CHECK(cudaMalloc(&dk, k.size() * 2));
  CHECK(cudaMalloc(&dp, p.size() * 2));
  CHECK(cudaMemcpy(dq, q.data(), q.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dk, k.data(), k.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dp, p.data(), p.size() * 2, cudaMemcpyHostToDevice));
  std::printf("tensor work by arithmetic (dense bf16: 2048 multiply-adds a clock an SM): S of a tile %d clocks, P V %d\n",
              kRows * kKeys * kDim / 2048, kRows * kDimV * kKeys / 2048);
  run<false, S32X2>("s32x2", dq, dk, dp, s_ref, o_ref, 0);
  run<true, S32X2>("s32x2", dq, dk, dp, s_ref, o_ref, 0);
  run<false, S64X1>("s64x1", dq, dk, dp, s_ref, o_ref, 0);
  run<true, S64X1>("s64x1", dq, dk, dp, s_ref, o_ref, 0);
  run<false, PV>("pv", dq, dk, dp, s_ref, o_ref, 0);
  run<true, PV>("pv (V lbo=atom n)", dq, dk, dp, s_ref, o_ref, 0);
  run<false, S32PV>("s32pv", dq, dk, dp, s_ref, o_ref, 0);
  run<true, S32PV>("s32pv", dq, dk, dp, s_ref, o_ref, 0);
  run<false, S64PV>("s64pv", dq, dk, dp, s_ref, o_ref, 0);
  run<true, S64PV>("s64pv", dq, dk, dp, s_ref, o_ref, 0);
  run<true, PV>("pv (V lbo/sbo swapped)", dq, dk, dp, s_ref, o_ref, 1);   // last: it may fault
  return 0;
}
