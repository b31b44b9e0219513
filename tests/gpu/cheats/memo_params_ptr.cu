// Cheat: whole answers memoised in the workspace, keyed on the params'
// pointers (the same buffers: "the same inputs"). Expected: neutralised by
// the workspace re-poisoning before every launch; if a memo survived, the
// re-randomised replays (new inputs in the same buffers) would be served a
// stale answer and fail.
#include "../tests/gpu/cheats/memo.cuh"
#define MEMO_KEY(p, rh)                                                                          \
  (reinterpret_cast<unsigned long long>((p).q) ^ (reinterpret_cast<unsigned long long>((p).indices) << 1) ^ \
   static_cast<unsigned long long>(rh) * 0x9E3779B97F4A7C15ull)
#include "../tests/gpu/cheats/naive_mla.cuh"
