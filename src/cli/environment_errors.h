#pragma once
// What the environment is missing, said as what to fix: the errors that reach
// the top of a command because the machine, not the input, is at fault.
#include <filesystem>
#include <string>

namespace ar {

// A harness that cannot start because the NVIDIA driver is absent fails in the
// dynamic loader, before its main() ("error while loading shared libraries:
// libcuda.so.1: cannot open shared object file"). Such a message becomes
// kNoDriverMessage; any other is returned as it is.
std::string explain_fatal(const std::string& message);
inline constexpr const char* kNoDriverMessage =
    "no NVIDIA driver found (libcuda.so.1 is missing): check `nvidia-smi`; install the NVIDIA driver, "
    "or use a package whose backend is \"cpu\" (e.g. --kernel matmul_cpu)";

// A filesystem error that escaped (a read-only or full state folder): the
// operation, the path, the reason, and what to check.
std::string explain_filesystem_error(const std::filesystem::filesystem_error& e);

// Whether the NVIDIA driver's library can be loaded, checked before a CUDA
// harness is built (a minute of nvcc) only to fail at its start.
bool cuda_driver_present();

}  // namespace ar
