// A kernel with one tunable, MODE, that plants every way a candidate can fail,
// so one short run exercises each decision of the loop end to end:
//   0 plain i-j-k (the start)   1 does not compile   2 crashes (segfault)
//   3 hangs                     4 wrong result       5 really faster (vectorised)
#include <cstring>

#include "matmul_params.h"

#ifndef MODE
#define MODE 0
#endif

#if MODE == 1
#error planted build failure
#endif

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
#if MODE == 2
  *reinterpret_cast<volatile int*>(16) = 1;
#elif MODE == 3
  for (volatile int spin = 1; spin;) {
  }
#endif
#if MODE == 5
  // Eight-wide vectors over 32 columns at a time, each element still summed in k order: several times
  // faster, so the keep clears the noise bar even on a loaded machine (a plain i-k-j loop gained only
  // 1.26x there, under a bar of +27.6%).
  typedef float v8 __attribute__((vector_size(32)));
  for (int i = 0; i < p.m; ++i) {
    const float* a = p.a + static_cast<long>(i) * p.lda;
    float* c = p.c + static_cast<long>(i) * p.ldc;
    int j = 0;
    for (; j + 32 <= p.n; j += 32) {
      v8 acc[4] = {};
      for (int k = 0; k < p.k; ++k) {
        const float* b = p.b + static_cast<long>(k) * p.ldb + j;
        for (int q = 0; q < 4; ++q) {
          v8 bv;
          std::memcpy(&bv, b + 8 * q, sizeof bv);
          acc[q] += a[k] * bv;
        }
      }
      std::memcpy(c + j, acc, sizeof acc);
    }
    for (; j < p.n; ++j) {
      float s = 0;
      for (int k = 0; k < p.k; ++k) s += a[k] * p.b[static_cast<long>(k) * p.ldb + j];
      c[j] = s;
    }
  }
#else
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) {
      float s = 0;
      for (int k = 0; k < p.k; ++k) s += p.a[static_cast<long>(i) * p.lda + k] * p.b[static_cast<long>(k) * p.ldb + j];
      p.c[static_cast<long>(i) * p.ldc + j] = s;
    }
#endif
#if MODE == 4
  p.c[0] += 1.0f;
#endif
}
