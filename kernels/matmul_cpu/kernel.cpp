// matmul_cpu: C = A * B in fp32 on one core (the file an agent edits).
//
// The build passes the tunables from tunables.json as -D defines:
//   TILE_M, TILE_N, TILE_K  cache blocking of C rows, C columns and the k range
//   LOOP_ORDER              0: i-j-k (dot product over k), 1: i-k-j (row update
//                           over j), 2: MR x NR register-blocked micro-kernel
//   UNROLL                  k steps per inner iteration (orders 0 and 1)
//   MR, NR                  micro-kernel block (order 2)
// The kernel must write every element of C (the harness fills C with NaN before
// each call), work for any m, n, k >= 1 and any row strides, and use one thread.
#include <algorithm>

#include "matmul_params.h"

#if !defined(TILE_M) || !defined(TILE_N) || !defined(TILE_K) || !defined(LOOP_ORDER) || \
    !defined(UNROLL) || !defined(MR) || !defined(NR)
#error "the build passes every tunable as -DNAME=value (see tunables.json)"
#endif

namespace {

struct Tile {
  int i0, i1, j0, j1, k0, k1;
};

// Dot products: for each C element, walk a row of A and a column of B.
void tile_ijk(const MatmulParams& p, const Tile& t) {
  for (int i = t.i0; i < t.i1; ++i) {
    const float* a = p.a + static_cast<long>(i) * p.lda;
    for (int j = t.j0; j < t.j1; ++j) {
      float sum[UNROLL] = {};
      int k = t.k0;
      for (; k + UNROLL <= t.k1; k += UNROLL)
        for (int u = 0; u < UNROLL; ++u) sum[u] += a[k + u] * p.b[static_cast<long>(k + u) * p.ldb + j];
      for (; k < t.k1; ++k) sum[0] += a[k] * p.b[static_cast<long>(k) * p.ldb + j];
      float s = 0;
      for (int u = 0; u < UNROLL; ++u) s += sum[u];
      p.c[static_cast<long>(i) * p.ldc + j] += s;
    }
  }
}

// Row updates: C[i, j0:j1] += A[i, k] * B[k, j0:j1], contiguous in j.
void tile_ikj(const MatmulParams& p, const Tile& t) {
  for (int i = t.i0; i < t.i1; ++i) {
    const float* a = p.a + static_cast<long>(i) * p.lda;
    float* c = p.c + static_cast<long>(i) * p.ldc;
    int k = t.k0;
    for (; k + UNROLL <= t.k1; k += UNROLL) {
      for (int j = t.j0; j < t.j1; ++j) {
        float s = c[j];
        for (int u = 0; u < UNROLL; ++u) s += a[k + u] * p.b[static_cast<long>(k + u) * p.ldb + j];
        c[j] = s;
      }
    }
    for (; k < t.k1; ++k) {
      const float* b = p.b + static_cast<long>(k) * p.ldb;
      for (int j = t.j0; j < t.j1; ++j) c[j] += a[k] * b[j];
    }
  }
}

// An MR x NR block of C held in local accumulators across the whole k range.
void micro_block(const MatmulParams& p, int i, int j, int k0, int k1) {
  float acc[MR][NR];
  for (int r = 0; r < MR; ++r)
    for (int c = 0; c < NR; ++c) acc[r][c] = p.c[static_cast<long>(i + r) * p.ldc + j + c];
  for (int k = k0; k < k1; ++k) {
    const float* b = p.b + static_cast<long>(k) * p.ldb + j;
    for (int r = 0; r < MR; ++r) {
      const float a = p.a[static_cast<long>(i + r) * p.lda + k];
      for (int c = 0; c < NR; ++c) acc[r][c] += a * b[c];
    }
  }
  for (int r = 0; r < MR; ++r)
    for (int c = 0; c < NR; ++c) p.c[static_cast<long>(i + r) * p.ldc + j + c] = acc[r][c];
}

void tile_micro(const MatmulParams& p, const Tile& t) {
  for (int i = t.i0; i < t.i1; i += MR) {
    for (int j = t.j0; j < t.j1; j += NR) {
      if (i + MR <= t.i1 && j + NR <= t.j1) {
        micro_block(p, i, j, t.k0, t.k1);
      } else {  // edge block: the generic row update
        tile_ikj(p, Tile{i, std::min(i + MR, t.i1), j, std::min(j + NR, t.j1), t.k0, t.k1});
      }
    }
  }
}

void tile_update(const MatmulParams& p, const Tile& t) {
  if constexpr (LOOP_ORDER == 0) tile_ijk(p, t);
  else if constexpr (LOOP_ORDER == 1) tile_ikj(p, t);
  else tile_micro(p, t);
}

}  // namespace

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
  for (int i0 = 0; i0 < p.m; i0 += TILE_M) {
    const int i1 = std::min(i0 + TILE_M, p.m);
    for (int j0 = 0; j0 < p.n; j0 += TILE_N) {
      const int j1 = std::min(j0 + TILE_N, p.n);
      for (int i = i0; i < i1; ++i)
        std::fill(p.c + static_cast<long>(i) * p.ldc + j0, p.c + static_cast<long>(i) * p.ldc + j1, 0.0f);
      for (int k0 = 0; k0 < p.k; k0 += TILE_K)
        tile_update(p, Tile{i0, i1, j0, j1, k0, std::min(k0 + TILE_K, p.k)});
    }
  }
}
