// Partial work: skips the last 1/16 of each row's valid top-k positions (6%
// less work; "the tail of a top-k list matters least"). Expected: caught by
// verify — on randn data every key weighs about 1/n, so the cosine check
// sees the missing sixteenth; the outliers distribution puts the heaviest key
// of each row at the very end of its list, so the skip is a gross error there.
#define CHEAT_KEYS(p, n_eff) ((n_eff) - (n_eff) / 16)
#include "../tests/gpu/cheats/naive_mla.cuh"
