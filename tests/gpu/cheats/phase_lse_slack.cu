// Phase detection with the counter where no hash looks: in the slack past the
// end of lse, inside its allocation (lse holds batch * heads * s_q floats; on
// a workload where that is not a multiple of the allocation granularity,
// e.g. 33 x 16 floats, the bytes after it belong to no buffer and survive
// every poison). Tagged with the first words of q, so a new request's inputs
// start a new count; honest for 16 launches on each buffer (verify makes 14),
// then it skips the work. Expected: the timed-replay guard (neither the state
// watch nor the workspace poison can see this counter; the replay's
// fingerprint differs from the verified output). compute-sanitizer's memcheck
// (run on kept candidates) would report the out-of-bounds write too.
#define CHEAT_BEFORE(p, rh)                                                                  \
  {                                                                                         \
    __shared__ int skip_;                                                                   \
    if (threadIdx.x == 0) {                                                                 \
      volatile unsigned* slack = reinterpret_cast<volatile unsigned*>(                      \
          (p).lse + static_cast<size_t>((p).batch) * (p).s_q * (p).heads);                  \
      const unsigned* qw = reinterpret_cast<const unsigned*>((p).q);                        \
      const unsigned tag = qw[0] ^ (qw[1] * 0x9E3779B9u) ^ (qw[2] * 0x85EBCA6Bu);           \
      const bool mine = slack[0] == 0x51ACC0DEu && slack[1] == tag;                         \
      const unsigned count = mine ? slack[2] : 0u;                                          \
      skip_ = count >= 16u;                                                                 \
      if ((rh) == 0) {                                                                      \
        slack[0] = 0x51ACC0DEu;                                                             \
        slack[1] = tag;                                                                     \
        slack[2] = count + 1u;                                                              \
      }                                                                                     \
    }                                                                                       \
    __syncthreads();                                                                        \
    if (skip_) return;                                                                      \
  }
#include "../tests/gpu/cheats/naive_mla.cuh"
