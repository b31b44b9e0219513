#include "cuda/cuda_check.h"

#include <cstdio>

#include "common/device.h"

namespace ar::harness {

namespace {

// The same numbers in both APIs; listed once.
bool sticky_code(int code) {
  switch (code) {
    case cudaErrorECCUncorrectable:
    case cudaErrorNvlinkUncorrectable:
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorContextIsDestroyed:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorUnknown:
      return true;
    default:
      return false;
  }
}

std::string where(const char* call, const char* file, int line) {
  std::string f = file;
  const auto slash = f.find_last_of('/');
  if (slash != std::string::npos) f = f.substr(slash + 1);
  return f + ":" + std::to_string(line) + ": " + call + " failed: ";
}

}  // namespace

bool is_sticky(CUresult r) { return sticky_code(static_cast<int>(r)); }
bool is_sticky(cudaError_t e) { return sticky_code(static_cast<int>(e)); }

std::string describe(CUresult r, const char* call, const char* file, int line) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName(r, &name) != CUDA_SUCCESS) name = nullptr;
  if (cuGetErrorString(r, &text) != CUDA_SUCCESS) text = nullptr;
  return where(call, file, line) + (name ? name : "CUresult " + std::to_string(static_cast<int>(r))) +
         (text ? std::string(" (") + text + ")" : std::string());
}

std::string describe(cudaError_t e, const char* call, const char* file, int line) {
  return where(call, file, line) + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
}

void throw_cuda_error(CUresult r, const char* kind, const char* call, const char* file, int line) {
  throw HarnessError(is_sticky(r) ? "fault" : kind, describe(r, call, file, line));
}

void throw_cuda_error(cudaError_t e, const char* kind, const char* call, const char* file, int line) {
  // Clear a non-sticky error so the next call does not report it again.
  if (!is_sticky(e)) (void)cudaGetLastError();
  throw HarnessError(is_sticky(e) ? "fault" : kind, describe(e, call, file, line));
}

void warn_cuda_error(CUresult r, const char* call, const char* file, int line) {
  std::fprintf(stderr, "harness: %s\n", describe(r, call, file, line).c_str());
}

void warn_cuda_error(cudaError_t e, const char* call, const char* file, int line) {
  std::fprintf(stderr, "harness: %s\n", describe(e, call, file, line).c_str());
}

}  // namespace ar::harness
