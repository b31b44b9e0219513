// Rows spread over an OpenMP team (built with -fopenmp): libgomp keeps its
// worker threads alive after the parallel region.
#include "../threads.h"

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
#pragma omp parallel for num_threads(2)
  for (int i = 0; i < p.m; ++i) compute_rows(p, i, i + 1);
}
