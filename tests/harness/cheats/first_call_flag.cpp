// Remembers only that it has run once (a one-shot flag). If two slots, or a
// reload, shared one mapping of the library, the second load would snapshot
// the flag already set and the flag would never change again; private copies
// start clear, so every load is caught on its first call.
#include "honest.h"

static volatile bool ran = false;  // volatile: a flag nothing reads would be optimised away

extern "C" void ar_kernel(const void* params) {
  ran = true;
  honest_kernel(params);
}
