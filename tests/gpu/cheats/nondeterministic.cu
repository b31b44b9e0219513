// Cheat: output bits depend on timing (here the SM clock's parity flips the last
// bit, well inside the tolerance), like a race or an order-dependent atomic sum.
// Expected: caught by verify (two runs on the same inputs differ bitwise).
#define CHEAT_OUT(p, rh, d, v) \
  __uint_as_float(__float_as_uint(v) ^ static_cast<unsigned>((clock64() >> 3) & 1) << 16)
#include "../tests/gpu/cheats/naive_mla.cuh"
