// Probe of the wgmma path of a sparse_mla kernel (scripts/ideas/sparse_mla/02-*):
// S = Q K^T for 64 x 32 x 576 through the kernel's wgmma wrapper and chunk-major
// tiles, against the CPU, also with LBO/SBO swapped, to tell a descriptor mistake
// from an accumulator-mapping one. Built by scripts/ideas_run.sh with -I the
// patched package (the kernel defines the helpers in an anonymous namespace).
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include "kernel.cu"

__global__ void probe(const __nv_bfloat16* q, const __nv_bfloat16* k, float* s, int swap) {
  __shared__ __align__(128) __nv_bfloat16 Qs[64 * 576];
  __shared__ __align__(128) __nv_bfloat16 Ks[32 * 576];
  for (int i = threadIdx.x; i < 64 * 576; i += 128) { int r = i / 576, c = i % 576; Qs[tile_elem(64, r, c)] = q[i]; }
  for (int i = threadIdx.x; i < 32 * 576; i += 128) { int r = i / 576, c = i % 576; Ks[tile_elem(32, r, c)] = k[i]; }
  fence_proxy_async();
  __syncthreads();
  float acc[16];
  const uint64_t dq = swap ? smem_desc(Qs, 128, 64 * 16) : smem_desc(Qs, 64 * 16, 128);
  const uint64_t dk = swap ? smem_desc(Ks, 128, 32 * 16) : smem_desc(Ks, 32 * 16, 128);
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < 36; ++kk)
    wgmma_bf16<32>(acc, dq + ((kk * 2 * 64 * 16) >> 4), dk + ((kk * 2 * 32 * 16) >> 4), kk > 0);
  wgmma_commit();
  wgmma_wait_all();
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t4 = lane & 3;
  for (int j = 0; j < 4; ++j)
    for (int e = 0; e < 4; ++e) {
      const int r = warp * 16 + g + (e >> 1) * 8, c = j * 8 + 2 * t4 + (e & 1);
      s[r * 32 + c] = acc[4 * j + e];
    }
}

// O = P V: P 64 x 32 (K-major, chunk-major like Q), V = columns 0..127 of a
// 32-key chunk-major tile (MN-major for wgmma), both descriptor orders.
__global__ void probe_pv(const __nv_bfloat16* pm, const __nv_bfloat16* k, float* o, int swap) {
  __shared__ __align__(128) __nv_bfloat16 Ps[64 * 32];
  __shared__ __align__(128) __nv_bfloat16 Ks[32 * 576];
  for (int i = threadIdx.x; i < 64 * 32; i += 128) { int r = i / 32, c = i % 32; Ps[tile_elem(64, r, c)] = pm[i]; }
  for (int i = threadIdx.x; i < 32 * 576; i += 128) { int r = i / 576, c = i % 576; Ks[tile_elem(32, r, c)] = k[i]; }
  fence_proxy_async();
  __syncthreads();
  float acc[64];
  for (int i = 0; i < 64; ++i) acc[i] = 0.f;
  const uint64_t dp = smem_desc(Ps, 64 * 16, 128);
  const uint64_t dv = swap ? smem_desc(Ks, 32 * 16, 128) : smem_desc(Ks, 128, 32 * 16);
  wgmma_fence();
  for (int kk = 0; kk < 2; ++kk) wgmma_pv_n128(acc, dp + ((kk * 2 * 64 * 16) >> 4), dv + ((kk * 256) >> 4), 1);
  wgmma_commit();
  wgmma_wait_all();
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t4 = lane & 3;
  for (int j = 0; j < 16; ++j)
    for (int e = 0; e < 4; ++e) o[(warp * 16 + g + (e >> 1) * 8) * 128 + j * 8 + 2 * t4 + (e & 1)] = acc[4 * j + e];
}

// argv[1]: the one case to run (0, 1: Q K^T as written / swapped; 2, 3: P V),
// each in its own process because a wrong descriptor can fault the context.
int main(int argc, char** argv) {
  const int only = argc > 1 ? atoi(argv[1]) : -1;
  std::vector<__nv_bfloat16> hq(64 * 576), hk(32 * 576);
  std::vector<float> fq(hq.size()), fk(hk.size());
  srand(1);
  for (size_t i = 0; i < hq.size(); ++i) { hq[i] = __float2bfloat16((rand() % 17 - 8) / 8.f); fq[i] = __bfloat162float(hq[i]); }
  for (size_t i = 0; i < hk.size(); ++i) { hk[i] = __float2bfloat16((rand() % 17 - 8) / 8.f); fk[i] = __bfloat162float(hk[i]); }
  __nv_bfloat16 *dq, *dk; float* ds;
  cudaMalloc(&dq, hq.size() * 2); cudaMalloc(&dk, hk.size() * 2); cudaMalloc(&ds, 64 * 32 * 4);
  cudaMemcpy(dq, hq.data(), hq.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(dk, hk.data(), hk.size() * 2, cudaMemcpyHostToDevice);
  for (int swap = 0; swap < 2; ++swap) {
    if (only >= 0 && only != swap) continue;
    cudaMemset(ds, 0, 64 * 32 * 4);
    probe<<<1, 128>>>(dq, dk, ds, swap);
    cudaError_t e = cudaDeviceSynchronize();
    std::vector<float> hs(64 * 32);
    cudaMemcpy(hs.data(), ds, hs.size() * 4, cudaMemcpyDeviceToHost);
    double maxerr = 0; int bad = 0;
    for (int r = 0; r < 64; ++r) for (int c = 0; c < 32; ++c) {
      double ref = 0; for (int d = 0; d < 576; ++d) ref += double(fq[r * 576 + d]) * fk[c * 576 + d];
      double err = fabs(ref - hs[r * 32 + c]); if (err > 1e-2) ++bad; maxerr = fmax(maxerr, err);
    }
    printf("wgmma Q K^T probe (%s LBO/SBO): %s, max abs error %.3g, %d of 2048 wrong\n", swap ? "swapped" : "as written",
           cudaGetErrorString(e), maxerr, bad);
  }
  {
    std::vector<__nv_bfloat16> hp(64 * 32);
    std::vector<float> fp(hp.size());
    for (size_t i = 0; i < hp.size(); ++i) { hp[i] = __float2bfloat16((rand() % 9) / 8.f); fp[i] = __bfloat162float(hp[i]); }
    __nv_bfloat16* dp; float* dout;
    cudaMalloc(&dp, hp.size() * 2); cudaMalloc(&dout, 64 * 128 * 4);
    cudaMemcpy(dp, hp.data(), hp.size() * 2, cudaMemcpyHostToDevice);
    for (int swap = 0; swap < 2; ++swap) {
      if (only >= 0 && only != 2 + swap) continue;
      cudaMemset(dout, 0, 64 * 128 * 4);
      probe_pv<<<1, 128>>>(dp, dk, dout, swap);
      cudaError_t e = cudaDeviceSynchronize();
      std::vector<float> ho(64 * 128);
      cudaMemcpy(ho.data(), dout, ho.size() * 4, cudaMemcpyDeviceToHost);
      double maxerr = 0; int bad = 0;
      for (int r = 0; r < 64; ++r) for (int c = 0; c < 128; ++c) {
        double ref = 0; for (int t = 0; t < 32; ++t) ref += double(fp[r * 32 + t]) * fk[t * 576 + c];
        double err = fabs(ref - ho[r * 128 + c]); if (err > 1e-2) ++bad; maxerr = fmax(maxerr, err);
      }
      printf("wgmma P V probe (V descriptor %s): %s, max abs error %.3g, %d of 8192 wrong\n",
             swap ? "LBO = chunk column, SBO = 8 keys" : "LBO = 8 keys, SBO = chunk column", cudaGetErrorString(e), maxerr, bad);
      if (e != cudaSuccess) return 1;
    }
  }
  return 0;
}
