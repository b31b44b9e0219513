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

// The re-randomised replay round inside the measurement. One fraction f is
// drawn uniformly from [0, 1); the round is the first one that is at least
// 1 + floor(f * (min_samples - 1)) and starts at least f * min_seconds into
// the sampling. The bench cannot stop before min_samples rounds and
// min_seconds, so the round lands anywhere in the part of the measurement it
// is sure to take, whatever the pace of its rounds (not only in the first
// rounds, where issue 7 found it). With min_samples 1 the first candidate
// round is 0.
class RerandomisedRound {
 public:
  RerandomisedRound(const StopRule& stop, std::mt19937_64& rng);
  // Whether `round`, starting `elapsed_seconds` into the sampling, is the
  // re-randomised one. Asked once per round, in increasing order; true once.
  bool due(long long round, double elapsed_seconds);
  bool done() const { return round_ >= 0; }
  long long round() const { return round_; }   // -1 until it happened
  long long first_round() const { return first_round_; }
  double after_seconds() const { return after_seconds_; }

 private:
  long long first_round_ = 0;
  double after_seconds_ = 0;
  long long round_ = -1;
};

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
