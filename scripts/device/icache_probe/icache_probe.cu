// What straight-line code costs a block that runs it once (issue 9: a B=1 block runs its tile's code once,
// about 70 KB of SASS in sparse_mla's chunk-major entry point, and costs about 10 us beyond its work).
// Kernels of equal instruction counts, timed in CUDA graphs of back-to-back launches (64 blocks of 256
// threads, as B=1's attention stage):
//   straight<V>  KSTEPS x 8 FFMAs fully unrolled (about 16 B of code each): V picks one of four copies of
//                the same code at different addresses
//   looped<V>    the same FFMAs in a loop whose body is 64 of them
// "same": one kernel launched N times (its code stays in the SM's instruction caches); "rotate": the four
// copies in turn (more code than the caches hold, so each launch fetches its code again). The difference
// is what fetching that much code costs a launch; with `flush`, a 256 MB memset before each launch as the
// harness's cold bench does (code then comes from DRAM).
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#include <algorithm>

#ifndef KSTEPS
#define KSTEPS 384   // 384 x 8 FFMAs: about 48 KB of straight-line code
#endif

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

template <int V>
__global__ void __launch_bounds__(256) straight(float* out, float x) {
  float a[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) a[j] = x + threadIdx.x + j;
#pragma unroll
  for (int k = 0; k < KSTEPS; ++k)
#pragma unroll
    for (int j = 0; j < 8; ++j) a[j] = fmaf(a[j], 1.0001f + 1e-7f * (k * 8 + j + V), 1e-6f * (k + V));
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < 8; ++j) s += a[j];
  if (s == 12345.f) out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <int V>
__global__ void __launch_bounds__(256) looped(float* out, float x, int iters) {
  float a[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) a[j] = x + threadIdx.x + j;
#pragma unroll 1
  for (int k = 0; k < iters; ++k)
#pragma unroll
    for (int u = 0; u < 8; ++u)
#pragma unroll
      for (int j = 0; j < 8; ++j) a[j] = fmaf(a[j], 1.0001f + 1e-7f * (u * 8 + j + V + k), 1e-6f * (u + V));
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < 8; ++j) s += a[j];
  if (s == 12345.f) out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

using Launch = void (*)(cudaStream_t, float*, int);
template <int V> void launch_straight(cudaStream_t s, float* o, int) { straight<V><<<64, 256, 0, s>>>(o, 1.f); }
template <int V> void launch_looped(cudaStream_t s, float* o, int iters) { looped<V><<<64, 256, 0, s>>>(o, 1.f, iters); }

// Median microseconds a launch over `reps` graph replays of `n` launches (each launch preceded by the flush
// when `flush`); the same graph without the kernels gives the flush's own time, subtracted.
static float time_graph(const std::vector<Launch>& ks, int n, bool flush, float* o, void* fbuf, size_t fbytes, int iters) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  auto build = [&](bool with_kernels) {
    cudaGraph_t g;
    cudaGraphExec_t ge;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    for (int i = 0; i < n; ++i) {
      if (flush) cudaMemsetAsync(fbuf, i & 0xff, fbytes, s);
      if (with_kernels) ks[i % ks.size()](s, o, iters);
    }
    cudaStreamEndCapture(s, &g);
    cudaGraphInstantiate(&ge, g, 0);
    cudaGraphDestroy(g);
    return ge;
  };
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  auto median = [&](cudaGraphExec_t ge) {
    std::vector<float> t;
    for (int r = 0; r < 25; ++r) {
      cudaEventRecord(e0, s);
      cudaGraphLaunch(ge, s);
      cudaEventRecord(e1, s);
      cudaEventSynchronize(e1);
      float ms;
      cudaEventElapsedTime(&ms, e0, e1);
      t.push_back(ms * 1000.f);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  cudaGraphExec_t with = build(true), without = build(false);
  median(with);
  const float us = (median(with) - (flush ? median(without) : 0.f)) / n;
  cudaGraphExecDestroy(with);
  cudaGraphExecDestroy(without);
  cudaStreamDestroy(s);
  return us;
}

int main() {
  float* o;
  CK(cudaMalloc(&o, 64 * 256 * sizeof(float)));
  const size_t fbytes = 256ull << 20;
  void* fbuf;
  CK(cudaMalloc(&fbuf, fbytes));
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, straight<0>));
  int straight_regs = fa.numRegs;
  CK(cudaFuncGetAttributes(&fa, looped<0>));
  printf("KSTEPS %d: straight-line code about %d KB (regs %d), looped (regs %d)\n", KSTEPS, KSTEPS * 8 * 16 / 1024,
         straight_regs, fa.numRegs);
  const int iters = KSTEPS / 8;
  std::vector<Launch> s1 = {launch_straight<0>}, s4 = {launch_straight<0>, launch_straight<1>, launch_straight<2>, launch_straight<3>};
  std::vector<Launch> l1 = {launch_looped<0>}, l4 = {launch_looped<0>, launch_looped<1>, launch_looped<2>, launch_looped<3>};
  for (bool flush : {false, true}) {
    const int n = flush ? 8 : 40;
    printf("%s (us a launch, median of 25 replays of %d launches%s):\n", flush ? "flush" : "no flush", n,
           flush ? ", the flush's own time subtracted" : "");
    printf("  straight same   %7.2f\n", time_graph(s1, n, flush, o, fbuf, fbytes, iters));
    printf("  straight rotate %7.2f\n", time_graph(s4, n, flush, o, fbuf, fbytes, iters));
    printf("  looped   same   %7.2f\n", time_graph(l1, n, flush, o, fbuf, fbytes, iters));
    printf("  looped   rotate %7.2f\n", time_graph(l4, n, flush, o, fbuf, fbytes, iters));
  }
  CK(cudaDeviceSynchronize());
  return 0;
}
