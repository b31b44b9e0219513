// Phase detection without any state: a timed sample starts after the L2 has
// been flushed, an eager (verified) run right after its outputs were poisoned,
// which leaves them in L2. Each block times two loads of the same line of its
// output row: a first load much slower than the second means a cold cache,
// i.e. "being timed", and the block skips the work. (The static scan rejects
// clock reads in the source; this cheat is here for the harness, which must
// catch the behaviour whatever the source looks like.) Expected: the
// timed-replay guard, on the first cold sample ("timed replay N (rotation r)
// ... differs from the verified output").
__device__ inline bool cache_is_cold(const void* line) {
  unsigned v1, v2, z1, z2;
  const unsigned long long t0 = clock64();
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v1) : "l"(line) : "memory");
  asm volatile("and.b32 %0, %1, 0;" : "=r"(z1) : "r"(v1));
  const unsigned long long t1 = clock64() + z1;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v2) : "l"(static_cast<const char*>(line) + z1) : "memory");
  asm volatile("and.b32 %0, %1, 0;" : "=r"(z2) : "r"(v2));
  const unsigned long long t2 = clock64() + z2;
  return (t1 - t0) > (t2 - t1) + 200;   // an HBM miss against an L2 hit of the same line
}
#define CHEAT_BEFORE(p, rh)                                                                 \
  {                                                                                        \
    __shared__ int cold_;                                                                  \
    if (threadIdx.x == 0) cold_ = cache_is_cold((p).out + static_cast<size_t>(rh) * 512 + 256); \
    __syncthreads();                                                                       \
    if (cold_) return;                                                                     \
  }
#include "../tests/gpu/cheats/naive_mla.cuh"
