#pragma once
// Every CUDA call in the harness goes through one of these macros, so a failure
// names the file, the line and the call, and carries the protocol's error kind.
// An error that poisons the context (illegal address, launch failure, ...) is
// always a "fault", whatever kind the call site asked for: the harness replies,
// then exits, and the driver restarts it.
//
//   AR_CU(kind, cuLaunchKernel(...));        driver API (CUresult)
//   AR_CUDA(kind, cudaMemsetAsync(...));     runtime API (cudaError_t)
//   AR_CU_CHECK(call) / AR_CUDA_CHECK(call)  the same with kind "fault": a call
//                                            the harness itself makes and that
//                                            only fails when the device is broken
//   AR_CU_WARN(call) / AR_CUDA_WARN(call)    cleanup (destructors, error paths):
//                                            report on stderr, never throw
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <string>

namespace ar::harness {

// True for the errors after which the CUDA context cannot be used again.
bool is_sticky(CUresult r);
bool is_sticky(cudaError_t e);

// "file.cu:42: cuLaunchKernel(f, ...) failed: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access ...)"
std::string describe(CUresult r, const char* call, const char* file, int line);
std::string describe(cudaError_t e, const char* call, const char* file, int line);

// Throw HarnessError(kind or "fault", description).
[[noreturn]] void throw_cuda_error(CUresult r, const char* kind, const char* call, const char* file,
                                   int line);
[[noreturn]] void throw_cuda_error(cudaError_t e, const char* kind, const char* call,
                                   const char* file, int line);

// Print the description on stderr (replies go to stdout; stderr is the log).
void warn_cuda_error(CUresult r, const char* call, const char* file, int line);
void warn_cuda_error(cudaError_t e, const char* call, const char* file, int line);

}  // namespace ar::harness

#define AR_CU(kind, call)                                                                   \
  do {                                                                                      \
    const CUresult ar_cu_result_ = (call);                                                  \
    if (ar_cu_result_ != CUDA_SUCCESS)                                                      \
      ::ar::harness::throw_cuda_error(ar_cu_result_, (kind), #call, __FILE__, __LINE__);    \
  } while (0)

#define AR_CUDA(kind, call)                                                                 \
  do {                                                                                      \
    const cudaError_t ar_cuda_result_ = (call);                                             \
    if (ar_cuda_result_ != cudaSuccess)                                                     \
      ::ar::harness::throw_cuda_error(ar_cuda_result_, (kind), #call, __FILE__, __LINE__);  \
  } while (0)

#define AR_CU_CHECK(call) AR_CU("fault", call)
#define AR_CUDA_CHECK(call) AR_CUDA("fault", call)

#define AR_CU_WARN(call)                                                                    \
  do {                                                                                      \
    const CUresult ar_cu_result_ = (call);                                                  \
    if (ar_cu_result_ != CUDA_SUCCESS)                                                      \
      ::ar::harness::warn_cuda_error(ar_cu_result_, #call, __FILE__, __LINE__);             \
  } while (0)

#define AR_CUDA_WARN(call)                                                                  \
  do {                                                                                      \
    const cudaError_t ar_cuda_result_ = (call);                                             \
    if (ar_cuda_result_ != cudaSuccess)                                                     \
      ::ar::harness::warn_cuda_error(ar_cuda_result_, #call, __FILE__, __LINE__);           \
  } while (0)
