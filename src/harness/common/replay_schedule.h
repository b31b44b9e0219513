#pragma once
// When the bench checks its timed replays beyond the per-sample fingerprint
// (PROTOCOL.md "bench", replay_check). Pure decisions from a seed, so they are
// unit-tested without a device, and unpredictable to a kernel: the seed mixes
// in entropy the kernel never sees, and is reported so a failure can be replayed.
#include <cstdint>
#include <random>
#include <vector>

#include "common/stop_rule.h"

namespace ar::harness {

// The re-randomised replay round inside the measurement: drawn uniformly from
// [1, expected) where `expected` is the number of rounds the bench is sure to
// take (at least min_samples, and as many as fit in min_seconds at the
// warm-up's pace), so it may land anywhere in the guaranteed part of the
// measurement, not only in the first rounds; 0 when expected < 2.
long long draw_rerandomised_round(const StopRule& stop, double seconds_per_round, std::mt19937_64& rng);

// Rounds that get a tolerance check when the kernel is nondeterministic (its
// outputs cannot be fingerprinted): the first drawn from [0, min_samples),
// each next one at a distance drawn from [1, max(min_samples, round + 1)], so
// the checks spread over a measurement of any length (about log2 of its
// rounds). The last round is checked separately, after the stop rule holds.
class RandomCheckRounds {
 public:
  RandomCheckRounds(long long min_samples, uint64_t seed);
  // Whether `round` is checked. Rounds are asked in increasing order.
  bool due(long long round);
  long long next() const { return next_; }

 private:
  long long min_samples_;
  std::mt19937_64 rng_;
  long long next_;
};

// Which rotations' eager runs are tolerance-checked before timing: all of
// them when rotations <= limit, else `limit` distinct ones drawn at random
// (every rotation's output is still fingerprinted and every timed replay
// compared with it).
std::vector<bool> draw_verified_rotations(int rotations, int limit, std::mt19937_64& rng);

}  // namespace ar::harness
