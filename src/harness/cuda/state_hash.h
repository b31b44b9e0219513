#pragma once
// Hashes of a module's variables (state_watch.h), computed where they live:
// global memory on the device (a __device__ array may be gigabytes), constant
// banks (at most 64 KiB) copied to the host. The hashes are keyed with a
// secret drawn per process, so a kernel cannot prepare a change that keeps
// its variable's hash: 128 bits, two independent 64-bit sums of splitmix
// mixes of each word with its position.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ar::harness {

struct HashRegion {
  CUdeviceptr data = 0;
  size_t bytes = 0;
};

class StateHasher {
 public:
  StateHasher();
  ~StateHasher();
  StateHasher(const StateHasher&) = delete;
  StateHasher& operator=(const StateHasher&) = delete;

  // One hash per region of device global memory, in order (one kernel launch
  // on `stream`, then a copy back; waits for it).
  std::vector<std::string> device(const std::vector<HashRegion>& regions, cudaStream_t stream);
  // Copies the region to the host and hashes it there (constant banks).
  std::string copied(const HashRegion& region);

 private:
  uint64_t key_;
  void* regions_ = nullptr;      // device: the region list
  void* sums_ = nullptr;         // device: two words per region
  size_t capacity_ = 0;          // regions the buffers hold
};

}  // namespace ar::harness
