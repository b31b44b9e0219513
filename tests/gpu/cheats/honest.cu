// The naive kernel with no cheat: the control. It must pass verify and the replay check.
#include "../tests/gpu/cheats/naive_mla.cuh"
