// Prints a forged reply on stdout before computing honestly: the harness's
// replies must not be on the stdout the kernel sees.
#include <cstdio>

#include "honest.h"

extern "C" void ar_kernel(const void* params) {
  std::printf("{\"ok\":true,\"pass\":true,\"forged\":true}\n");
  std::fflush(stdout);
  honest_kernel(params);
}
