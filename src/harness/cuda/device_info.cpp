#include "cuda/device_info.h"

#include <algorithm>

#include "cuda/cuda_check.h"

namespace ar::harness {

namespace {

int attribute(cudaDeviceAttr a, int gpu) {
  int v = 0;
  AR_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, gpu));
  return v;
}

constexpr size_t kCopyBytes = size_t{1} << 30;   // per buffer: far past the L2
constexpr size_t kMinCopyBytes = size_t{64} << 20;
constexpr int kCopiesPerBatch = 10;
constexpr int kBatches = 5;

}  // namespace

DeviceFacts read_device_facts(int gpu) {
  DeviceFacts f;
  cudaDeviceProp p{};
  AR_CUDA_CHECK(cudaGetDeviceProperties(&p, gpu));
  f.name = p.name;
  char bus[32] = {0};
  AR_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, gpu));
  f.pci_bus_id = bus;
  f.cc_major = attribute(cudaDevAttrComputeCapabilityMajor, gpu);
  f.cc_minor = attribute(cudaDevAttrComputeCapabilityMinor, gpu);
  f.sm_count = attribute(cudaDevAttrMultiProcessorCount, gpu);
  f.l2_bytes = static_cast<size_t>(attribute(cudaDevAttrL2CacheSize, gpu));
  f.memory_bytes = p.totalGlobalMem;
  f.smem_per_block_optin = static_cast<size_t>(attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, gpu));
  f.max_grid_y = attribute(cudaDevAttrMaxGridDimY, gpu);
  f.max_grid_z = attribute(cudaDevAttrMaxGridDimZ, gpu);
  // cudaDeviceProp::clockRate is gone in CUDA 13; the attribute remains (kHz).
  f.peak_sm_mhz = attribute(cudaDevAttrClockRate, gpu) / 1000.0;
  AR_CUDA_CHECK(cudaDriverGetVersion(&f.driver_version));
  AR_CUDA_CHECK(cudaRuntimeGetVersion(&f.runtime_version));
  return f;
}

double measure_copy_bytes_per_s(cudaStream_t stream) {
  // Halve the buffers until they fit: a card shared with other processes may be short of memory.
  size_t bytes = kCopyBytes;
  void* src = nullptr;
  void* dst = nullptr;
  while (bytes >= kMinCopyBytes) {
    if (cudaMalloc(&src, bytes) == cudaSuccess) {
      if (cudaMalloc(&dst, bytes) == cudaSuccess) break;
      AR_CUDA_WARN(cudaFree(src));
      src = nullptr;
    }
    (void)cudaGetLastError();   // the failed allocation is expected; clear it
    bytes /= 2;
  }
  if (!src || !dst) return -1;

  cudaEvent_t start = nullptr, stop = nullptr;
  double best = -1;
  try {
    AR_CUDA_CHECK(cudaEventCreate(&start));
    AR_CUDA_CHECK(cudaEventCreate(&stop));
    AR_CUDA_CHECK(cudaMemsetAsync(src, 0x5a, bytes, stream));
    AR_CUDA_CHECK(cudaMemsetAsync(dst, 0, bytes, stream));
    for (int i = 0; i < 2; ++i)   // warm-up: clocks up, pages mapped
      AR_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
    for (int b = 0; b < kBatches; ++b) {
      AR_CUDA_CHECK(cudaEventRecord(start, stream));
      for (int i = 0; i < kCopiesPerBatch; ++i)
        AR_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
      AR_CUDA_CHECK(cudaEventRecord(stop, stream));
      AR_CUDA_CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      AR_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      if (ms > 0) best = std::max(best, 2.0 * static_cast<double>(bytes) * kCopiesPerBatch / (ms * 1e-3));
    }
  } catch (...) {
    AR_CUDA_WARN(cudaFree(src));
    AR_CUDA_WARN(cudaFree(dst));
    if (start) AR_CUDA_WARN(cudaEventDestroy(start));
    if (stop) AR_CUDA_WARN(cudaEventDestroy(stop));
    throw;
  }
  AR_CUDA_CHECK(cudaFree(src));
  AR_CUDA_CHECK(cudaFree(dst));
  AR_CUDA_CHECK(cudaEventDestroy(start));
  AR_CUDA_CHECK(cudaEventDestroy(stop));
  return best;
}

}  // namespace ar::harness
