#pragma once
// The pass rule of one element, shared by the host and the device comparisons
// of package problems (problem_kit.h, cuda_kit.cuh), so every package judges an
// element the same way unless it says otherwise:
//   a non-finite value passes only where the reference holds the same value
//   (+inf with +inf, -inf with -inf; NaN never passes);
//   a finite pair passes within abs_tol, or within rel_tol * |ref|.
// Host C++ (and __host__ __device__ under nvcc); no library calls.
#ifndef AR_HOST_DEVICE
#if defined(__CUDACC__)
#define AR_HOST_DEVICE __host__ __device__
#else
#define AR_HOST_DEVICE
#endif
#endif

namespace ar::harness::kit {

struct ElementCheck {
  bool finite_pair = true;
  bool pass = true;
  double abs_err = 0, rel_err = 0;   // rel_err: 0 where ref is 0 (then abs decides)
};

AR_HOST_DEVICE inline ElementCheck check_element(double cand, double ref, double abs_tol, double rel_tol) {
  ElementCheck e;
  const bool cand_finite = cand - cand == 0.0;   // false for NaN and +-inf (no fast-math in harness builds)
  const bool ref_finite = ref - ref == 0.0;
  if (!cand_finite || !ref_finite) {
    e.finite_pair = false;
    e.pass = cand == ref;                        // NaN == NaN is false
    return e;
  }
  const double mag = ref < 0 ? -ref : ref;
  e.abs_err = cand > ref ? cand - ref : ref - cand;
  e.rel_err = mag > 0 ? e.abs_err / mag : 0.0;
  e.pass = e.abs_err <= abs_tol || e.abs_err <= rel_tol * mag;
  return e;
}

}  // namespace ar::harness::kit
