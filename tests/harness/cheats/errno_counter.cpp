// Tries to count calls in errno (thread-local, in libc, outside the object).
// The harness zeroes errno before every call, so the count never reaches the
// switch and the kernel stays honest: a closed channel, not a caught one.
#include <cerrno>

#include "honest.h"

extern "C" void ar_kernel(const void* params) {
  const int calls = errno;
  honest_kernel(params);
  errno = calls + 1;
  if (calls >= 2) {
    const MatmulParams& p = *static_cast<const MatmulParams*>(params);
    p.c[0] = 1e30f;  // would be wrong from the third call on
  }
}
