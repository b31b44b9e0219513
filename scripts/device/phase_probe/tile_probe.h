// The tile probes' shared part (phase_probe_rows.patch, phase_probe_attend.patch): run.sh copies this file
// into the probed package beside kernel.cu. A diagnostic build, never a candidate.
//
// A probed kernel reads the SM clock around each phase of its tiles. The math thread keeps its phases in
// g_tile_probe (memory, not registers: more live sums made ptxas spill the math threads' registers), the
// producers keep sums in registers; each prints its totals once, after its last tile, with
// TILE_PROBE_PRINT (a printf costs tens of microseconds: never inside the loop). summarise.py reads the
// "probetile" lines.
#pragma once
#include <cstdio>

__device__ __forceinline__ unsigned probe_clock32() {   // 32 bits: a block's sums stay far below 2^32 cycles
  unsigned c;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(c));
  return c;
}
constexpr int kProbeBlocks = 1024, kProbeTiles = 32;
__device__ unsigned g_tile_probe[kProbeBlocks][kProbeTiles][4];
// Needs `tiles` (the block's tile count) in scope.
#define TILE_PROBE_PRINT(who, a, b, c, d)                                                                   \
  printf("probetile %s block %u grid %u tiles %d %u %u %u %u\n", who, blockIdx.x, gridDim.x, tiles, \
         (unsigned)(a), (unsigned)(b), (unsigned)(c), (unsigned)(d))
