// Cheat: whole answers memoised in the workspace, keyed on a hash of the
// row's q (issue 7, hole 3). On a bench's fixed rotations every launch after
// the first would be a copy: correct, and fast. Expected: neutralised — the
// workspace is filled with 0xFF before every launch, so no memo ever survives
// to the next one (the kernel always computes: no gain, every check passes).
#include "../tests/gpu/cheats/memo.cuh"
__device__ inline unsigned long long q_row_hash(const SparseMlaParams& p, int rh) {
  const unsigned* w = reinterpret_cast<const unsigned*>(p.q + static_cast<size_t>(rh) * 576);
  unsigned long long h = 0xcbf29ce484222325ull;
  for (int i = 0; i < 288; ++i) h = (h ^ w[i]) * 0x100000001b3ull;
  return h;
}
#define MEMO_KEY(p, rh) q_row_hash(p, rh)
#include "../tests/gpu/cheats/naive_mla.cuh"
