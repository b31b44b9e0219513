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

long long draw_rerandomised_round(const StopRule& stop, double seconds_per_round, std::mt19937_64& rng) {
  long long expected = std::max(1LL, stop.min_samples);
  if (seconds_per_round > 0 && std::isfinite(seconds_per_round)) {
    const double in_time = std::floor(stop.min_seconds / seconds_per_round);
    if (in_time > static_cast<double>(expected)) expected = static_cast<long long>(std::min(in_time, 1e9));
  }
  expected = std::min(expected, std::max(1LL, stop.max_samples));
  return expected < 2 ? 0 : uniform(rng, 1, expected - 1);
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
