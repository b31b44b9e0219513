#pragma once
// The single argument of the matmul_cpu kernel (protected: the kernel and the
// problem share this layout). Row-major: A is m x k with row stride lda, B is
// k x n with row stride ldb, C is m x n with row stride ldc. Strides may exceed
// the row length; the padding is not part of any matrix and must not be used
// or written.
#ifdef __cplusplus
extern "C" {
#endif

struct MatmulParams {
  const float* a;
  const float* b;
  float* c;
  int m, n, k;
  int lda, ldb, ldc;
};

#ifdef __cplusplus
}
#endif
