// The dry-run probe's stand-ins for src/harness/cuda/cuda_check.cpp: the same
// functions without the CUDA driver API, so a CUDA problem's host side links
// without libcuda and runs where no driver is installed. The probe never
// touches the device; if a problem does, the error still names the call.
#include <stdexcept>
#include <string>

#include "cuda/cuda_check.h"

namespace ar::harness {

bool is_sticky(CUresult) { return false; }
bool is_sticky(cudaError_t) { return false; }

std::string describe(CUresult r, const char* call, const char* file, int line) {
  return std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: CUresult " + std::to_string(r);
}
std::string describe(cudaError_t e, const char* call, const char* file, int line) {
  return std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " + cudaGetErrorString(e);
}

void throw_cuda_error(CUresult r, const char*, const char* call, const char* file, int line) {
  throw std::runtime_error(describe(r, call, file, line));
}
void throw_cuda_error(cudaError_t e, const char*, const char* call, const char* file, int line) {
  throw std::runtime_error(describe(e, call, file, line));
}
void warn_cuda_error(CUresult, const char*, const char*, int) {}
void warn_cuda_error(cudaError_t, const char*, const char*, int) {}

}  // namespace ar::harness
