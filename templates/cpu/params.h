#pragma once
// The kernel's single argument (protected: the kernel and problem.cpp share
// this layout). out[i] = alpha * x[i] + y[i] for i in [0, n).
#ifdef __cplusplus
extern "C" {
#endif

struct KernelParams {
  const float* x;
  const float* y;
  float* out;
  float alpha;
  long long n;
};

#ifdef __cplusplus
}
#endif
