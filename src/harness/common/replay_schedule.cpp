#include "common/replay_schedule.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ar::harness {

namespace {

long long uniform(std::mt19937_64& rng, long long lo, long long hi) {   // [lo, hi]
  if (hi <= lo) return lo;
  return lo + static_cast<long long>(rng() % static_cast<uint64_t>(hi - lo + 1));
}

}  // namespace

RerandomisedRound::RerandomisedRound(const StopRule& stop, std::mt19937_64& rng) {
  const double f = static_cast<double>(rng() >> 11) * 0x1.0p-53;   // [0, 1)
  const long long m = std::max(1LL, std::min(stop.min_samples, stop.max_samples));
  first_round_ = m >= 2 ? 1 + static_cast<long long>(std::floor(f * static_cast<double>(m - 1))) : 0;
  first_round_ = std::min(first_round_, std::max(0LL, m - 1));
  after_seconds_ = f * std::max(0.0, stop.min_seconds);
}

bool RerandomisedRound::due(long long round, double elapsed_seconds) {
  if (done() || round < first_round_ || elapsed_seconds < after_seconds_) return false;
  round_ = round;
  return true;
}

RandomCheckRounds::RandomCheckRounds(long long min_samples, uint64_t seed)
    : min_samples_(std::max(1LL, min_samples)), rng_(seed) {
  next_ = uniform(rng_, 0, min_samples_ - 1);
}

bool RandomCheckRounds::due(long long round) {
  if (round < next_) return false;
  const bool hit = round == next_;
  while (next_ <= round) next_ += uniform(rng_, 1, std::max(min_samples_, next_ + 1));
  return hit;
}

std::vector<bool> draw_verified_rotations(int rotations, int limit, std::mt19937_64& rng) {
  std::vector<bool> chosen(static_cast<size_t>(std::max(0, rotations)), false);
  if (limit <= 0) return chosen;
  if (rotations <= limit) {
    std::fill(chosen.begin(), chosen.end(), true);
    return chosen;
  }
  std::vector<int> order(static_cast<size_t>(rotations));
  std::iota(order.begin(), order.end(), 0);
  for (int i = 0; i < limit; ++i) {   // a partial Fisher-Yates shuffle
    const int j = static_cast<int>(uniform(rng, i, rotations - 1));
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
    chosen[static_cast<size_t>(order[static_cast<size_t>(i)])] = true;
  }
  return chosen;
}

}  // namespace ar::harness
