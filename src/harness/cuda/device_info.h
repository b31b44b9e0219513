#pragma once
// What the harness reports about the GPU in "hello", read once at start.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace ar::harness {

struct DeviceFacts {
  std::string name;
  std::string pci_bus_id;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  size_t l2_bytes = 0;
  size_t memory_bytes = 0;
  size_t smem_per_block_optin = 0;   // the most dynamic + static shared memory one block may use
  int max_grid_y = 0, max_grid_z = 0;
  double peak_sm_mhz = 0;            // cudaDevAttrClockRate: the fallback when NVML gives no clock
  int driver_version = 0;            // cudaDriverGetVersion, e.g. 13000
  int runtime_version = 0;
};

DeviceFacts read_device_facts(int gpu);

// Device-to-device copy bandwidth, bytes read plus bytes written per second:
// the best of a few timed batches of large cudaMemcpyAsync (~50 ms in all).
double measure_copy_bytes_per_s(cudaStream_t stream);

}  // namespace ar::harness
