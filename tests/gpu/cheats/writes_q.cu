// Cheat: uses its q row as scratch (zeroes the rope part after reading it).
// Expected: caught by verify (the input fingerprint changes).
#define CHEAT_AFTER(p, rh, out, lse)                                                        \
  for (int d = 512 + threadIdx.x; d < 576; d += blockDim.x)                                \
    const_cast<__nv_bfloat16*>((p).q)[static_cast<size_t>(rh) * 576 + d] = __float2bfloat16(0.f);
#include "../tests/gpu/cheats/naive_mla.cuh"
