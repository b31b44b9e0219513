// Probe of idea 11's two products (scripts/ideas/sparse_mla/11-row-gathers*, ROW_GATHER=1), each new
// to the kernel: S^T = K Q^T with K as wgmma's register A operand (ldmatrix from a row-major stage in
// the rg_row layout) and Q as the K-major B operand at N = 32 from head 32 wg on; O^T = V^T P^T with
// V^T by ldmatrix.trans from the same stage and P^T as the MN-major B operand at N = 32. The kernel's
// own rg_qk / rg_pv and address forms, against the CPU, on values exact in bf16 and fp32, so any
// mismatch is a layout mistake. Built with -I the patched package (its helpers are in an anonymous
// namespace of kernel.cu) and the idea's tunables by scripts/device/row_gather_probe/run.sh, which
// runs it on the GPU machine (tests/gpu/ideas_compile.sh only builds it).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "kernel.cu"

#if !ROW_GATHER
#error "build with -DROW_GATHER=1 and the tunables idea 11 needs"
#endif

namespace {
constexpr int kProbeHeads = 32;                                     // one warpgroup's heads
constexpr int kQBytes = HB * kDimQK * 2;                            // Q, chunk-major
constexpr int kPtBytes = BK * kProbeHeads * 2;                      // P^T, MN-major
constexpr int kProbeSmem = kQBytes + RG_STAGE_BYTES + kPtBytes;

__global__ void probe_rows(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* pt, int wg,
                           float* st_out, float* ot_out) {
  extern __shared__ __align__(1024) unsigned char sm[];
  __nv_bfloat16* Qs = reinterpret_cast<__nv_bfloat16*>(sm);
  unsigned char* stage = sm + kQBytes;
  __nv_bfloat16* Pt = reinterpret_cast<__nv_bfloat16*>(stage + RG_STAGE_BYTES);
  for (int i = threadIdx.x; i < HB * kDimQK; i += blockDim.x) Qs[tile_elem(HB, i / kDimQK, i % kDimQK)] = q[i];
  for (int i = threadIdx.x; i < BK * kDimQK; i += blockDim.x)
    *reinterpret_cast<__nv_bfloat16*>(stage + rg_row(i / kDimQK) + (i % kDimQK) * 2) = k[i];
  for (int i = threadIdx.x; i < BK * kProbeHeads; i += blockDim.x) {
    const int key = i / kProbeHeads, head = i % kProbeHeads;
    Pt[((head >> 3) * BK + key) * 8 + (head & 7)] = pt[i];
  }
  fence_proxy_async();
  __syncthreads();

  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t4 = lane & 3;
  const int wl = warp;   // one warpgroup
  // As attend_rows forms them.
  const uint64_t dq = smem_desc(Qs + wg * RG_HEADS * 8, HB * 16, 128);
  const uint64_t dp = smem_desc(Pt, 128, BK * 16);
  const uint32_t k_off = rg_row(16 * wl + (lane & 15)) + (lane >> 4) * 16;
  const uint32_t v_off = rg_row((lane & 7) + ((lane >> 4) << 3)) + (16 * wl + ((lane >> 3) & 1) * 8) * 2;

  float s[16];
  rg_qk(s, smem_addr(stage) + k_off, dq);
  for (int e = 0; e < 16; ++e) {
    const int key = 16 * wl + g + 8 * ((e & 3) >> 1), head = 8 * (e >> 2) + 2 * t4 + (e & 1);
    st_out[key * kProbeHeads + head] = s[e];
  }
  float o[kDimV / 64][16];
  for (int mt = 0; mt < kDimV / 64; ++mt)
    for (int e = 0; e < 16; ++e) o[mt][e] = 0.f;
  rg_pv(o, smem_addr(stage) + v_off, dp);
  for (int mt = 0; mt < kDimV / 64; ++mt)
    for (int e = 0; e < 16; ++e) {
      const int dim = 64 * mt + 16 * wl + g + 8 * ((e & 3) >> 1), head = 8 * (e >> 2) + 2 * t4 + (e & 1);
      ot_out[dim * kProbeHeads + head] = o[mt][e];
    }
}

// Small multiples of 1/8: every product and sum below is exact in fp32, so the check is equality.
float exact_value(unsigned& state) {
  state = state * 1664525u + 1013904223u;
  return static_cast<float>(static_cast<int>((state >> 24) % 9) - 4) / 8.f;
}

bool check(const char* what, const std::vector<float>& got, const std::vector<float>& want, int cols) {
  int wrong = 0, first = -1;
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      if (first < 0) first = static_cast<int>(i);
      ++wrong;
    }
  if (wrong == 0) {
    std::printf("%s: exact (%zu values)\n", what, want.size());
    return true;
  }
  std::printf("%s: %d of %zu wrong; first [%d][%d] got %g want %g\n", what, wrong, want.size(), first / cols,
              first % cols, got[first], want[first]);
  return false;
}
}  // namespace

int main() {
  unsigned state = 12345u;
  std::vector<float> q(HB * kDimQK), k(BK * kDimQK), pt(BK * kProbeHeads);
  for (auto& v : q) v = exact_value(state);
  for (auto& v : k) v = exact_value(state);
  for (auto& v : pt) v = exact_value(state);
  auto to_bf16 = [](const std::vector<float>& v) {
    std::vector<__nv_bfloat16> b(v.size());
    for (size_t i = 0; i < v.size(); ++i) b[i] = __float2bfloat16(v[i]);
    return b;
  };
  const auto qb = to_bf16(q), kb = to_bf16(k), ptb = to_bf16(pt);
  __nv_bfloat16 *dq, *dk, *dpt;
  float *dst, *dot;
  cudaMalloc(&dq, qb.size() * 2);
  cudaMalloc(&dk, kb.size() * 2);
  cudaMalloc(&dpt, ptb.size() * 2);
  cudaMalloc(&dst, BK * kProbeHeads * 4);
  cudaMalloc(&dot, kDimV * kProbeHeads * 4);
  cudaMemcpy(dq, qb.data(), qb.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(dk, kb.data(), kb.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(dpt, ptb.data(), ptb.size() * 2, cudaMemcpyHostToDevice);
  cudaFuncSetAttribute(probe_rows, cudaFuncAttributeMaxDynamicSharedMemorySize, kProbeSmem);

  bool ok = true;
  for (int wg = 0; wg < 2; ++wg) {
    probe_rows<<<1, 128, kProbeSmem>>>(dq, dk, dpt, wg, dst, dot);
    const cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
      std::printf("warpgroup %d: the probe failed: %s\n", wg, cudaGetErrorString(err));
      return 2;
    }
    std::vector<float> st(BK * kProbeHeads), ot(kDimV * kProbeHeads), st_want(st.size()), ot_want(ot.size());
    cudaMemcpy(st.data(), dst, st.size() * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(ot.data(), dot, ot.size() * 4, cudaMemcpyDeviceToHost);
    for (int key = 0; key < BK; ++key)
      for (int h = 0; h < kProbeHeads; ++h) {
        float acc = 0.f;
        for (int d = 0; d < kDimQK; ++d) acc += k[key * kDimQK + d] * q[(wg * kProbeHeads + h) * kDimQK + d];
        st_want[key * kProbeHeads + h] = acc;
      }
    for (int d = 0; d < kDimV; ++d)
      for (int h = 0; h < kProbeHeads; ++h) {
        float acc = 0.f;
        for (int key = 0; key < BK; ++key) acc += k[key * kDimQK + d] * pt[key * kProbeHeads + h];
        ot_want[d * kProbeHeads + h] = acc;
      }
    char name[64];
    std::snprintf(name, sizeof name, "S^T = K Q^T, heads %d-%d", wg * 32, wg * 32 + 31);
    ok &= check(name, st, st_want, kProbeHeads);
    std::snprintf(name, sizeof name, "O^T = V^T P^T (warpgroup %d's call)", wg);
    ok &= check(name, ot, ot_want, kProbeHeads);
  }
  return ok ? 0 : 1;
}
