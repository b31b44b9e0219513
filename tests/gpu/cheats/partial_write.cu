// Cheat: skips the last 16 columns of the last head (less work, "nobody checks the tail").
// Expected: caught by verify (the NaN poison survives in out).
#define CHEAT_WRITE_OUT(p, rh, d) (!((rh) % (p).heads == (p).heads - 1 && (d) >= 496))
#include "../tests/gpu/cheats/naive_mla.cuh"
