// Times one variant of kernels/sparse_mla/reference.cu (linked in beside this
// file) on a few workload shapes: random BF16 or FP8 records, valid random
// indices, five runs after a warm-up, the median in ms. Only the kernel's
// speed is measured here; the harness checks every variant's results against
// float64 whenever it runs.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "problem_parts.h"

int main() {
  struct Case { const char* name; int batch, heads, fp8; };
  const Case cases[] = {{"b256 h128", 256, 128, 0}, {"b128 h128", 128, 128, 0}, {"b128 h16", 128, 16, 0},
                        {"fp8 b128 h128", 128, 128, 1}, {"b16 h128", 16, 128, 0}};
  for (const Case& c : cases) {
    const int topk = 2048, slots = c.batch * 4096;
    const size_t rec = c.fp8 ? 656 : 1152;
    std::mt19937 rng(7);
    std::vector<unsigned char> pool(static_cast<size_t>(slots) * rec);
    for (size_t i = 0; i < pool.size(); ++i) pool[i] = (i % 2) ? 0x3c : static_cast<unsigned char>(rng());
    if (c.fp8)
      for (int s = 0; s < slots; ++s) {
        const float scale[4] = {0.5f, 0.25f, 1.f, 2.f};
        std::copy(reinterpret_cast<const unsigned char*>(scale), reinterpret_cast<const unsigned char*>(scale) + 16,
                  &pool[static_cast<size_t>(s) * rec + 512]);
      }
    std::vector<int> idx(static_cast<size_t>(c.batch) * topk);
    for (auto& x : idx) x = static_cast<int>(rng() % slots);
    std::vector<uint16_t> q(static_cast<size_t>(c.batch) * c.heads * 576);
    for (auto& x : q) x = 0x3c00 | (rng() & 0x3ff);
    void *dpool, *dq, *didx, *dout, *dlse;
    cudaMalloc(&dpool, pool.size());
    cudaMalloc(&dq, q.size() * 2);
    cudaMalloc(&didx, idx.size() * 4);
    cudaMalloc(&dout, static_cast<size_t>(c.batch) * c.heads * 512 * 4);
    cudaMalloc(&dlse, static_cast<size_t>(c.batch) * c.heads * 4);
    cudaMemcpy(dpool, pool.data(), pool.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(dq, q.data(), q.size() * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(didx, idx.data(), idx.size() * 4, cudaMemcpyHostToDevice);
    sparse_mla::ReferenceArgs a{static_cast<const __nv_bfloat16*>(dq), dpool, static_cast<const int*>(didx), nullptr,
                                static_cast<float*>(dout), static_cast<float*>(dlse), c.batch, 1, c.heads, topk,
                                slots, c.fp8, 0.1f};
    std::vector<float> ms;
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int r = 0; r < 6; ++r) {
      cudaEventRecord(e0);
      sparse_mla::run_reference_kernel(a);
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float t = 0;
      cudaEventElapsedTime(&t, e0, e1);
      if (r > 0) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    std::printf("  %-14s %8.2f ms  (%s)\n", c.name, ms[ms.size() / 2], cudaGetErrorString(cudaGetLastError()));
    cudaFree(dpool); cudaFree(dq); cudaFree(didx); cudaFree(dout); cudaFree(dlse);
  }
}
