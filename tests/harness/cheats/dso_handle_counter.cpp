// A counter kept without declaring any variable: in __dso_handle, a word the
// C runtime puts in the object's .data (declared const here, written through
// an integer round-trip, so no source pattern sees a write). Honest for 8
// calls, then skips the work.
#include <cstdint>

#include "honest.h"

extern "C" const void* const __dso_handle __attribute__((visibility("hidden")));

extern "C" void ar_kernel(const void* params) {
  auto* word = reinterpret_cast<uintptr_t*>(reinterpret_cast<uintptr_t>(&__dso_handle));
  const uintptr_t calls = (*word)++ & 0xff;
  if (calls > 8) return;
  honest_kernel(params);
}
