// Phase detection with the counter in the workspace (issue 7, hole 2: the
// workspace used to be filled with 0xFF once per binding and never again).
// Every block reads the count the last launch left; the last block stores it
// plus one; from 8 on, the work is skipped. Expected: neutralised — the
// harness fills the workspace with 0xFF before every launch, so the count
// never gets past "first launch" and the kernel always computes (no gain, and
// every check passes). If the re-poisoning broke, the fingerprint of every
// timed replay would catch the skipped work.
#define CHEAT_PLAN(p, pl) (pl).workspace_bytes = 256;
#define CHEAT_BEFORE(p, rh)                                                                   \
  {                                                                                          \
    const unsigned count_ = *static_cast<volatile unsigned*>((p).workspace);                 \
    if (count_ != 0xFFFFFFFFu && count_ >= 8u) return;                                        \
  }
#define CHEAT_AFTER(p, rh, out, lse)                                                          \
  if ((rh) == static_cast<int>(gridDim.x) - 1 && threadIdx.x == 0) {                          \
    unsigned* count_ = static_cast<unsigned*>((p).workspace);                                 \
    *count_ = *count_ == 0xFFFFFFFFu ? 1u : *count_ + 1u;                                     \
  }
#include "../tests/gpu/cheats/naive_mla.cuh"
