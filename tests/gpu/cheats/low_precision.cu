// Cheat: a precision downgrade (out rounded through e4m3, 3 mantissa bits) that
// a faster fp8 path might bring. Expected: caught by verify (tolerance).
#include <cuda_fp8.h>
#define CHEAT_OUT(p, rh, d, v) static_cast<float>(__nv_fp8_e4m3(v))
#include "../tests/gpu/cheats/naive_mla.cuh"
