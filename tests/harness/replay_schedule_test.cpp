// The bench's check scheduling (src/harness/common/replay_schedule.h): where
// the re-randomised round falls, how nondeterministic kernels' checks spread
// over a measurement, which rotations' eager runs are verified.
#include <algorithm>
#include <set>

#include "catch.h"
#include "common/replay_schedule.h"

using namespace ar::harness;

TEST_CASE("the re-randomised round falls anywhere in the guaranteed part of the measurement", "[harness-core]") {
  StopRule stop;
  stop.min_samples = 10;
  stop.min_seconds = 0.5;
  std::mt19937_64 rng(1);
  long long lo = 1 << 30, hi = 0;
  for (int i = 0; i < 2000; ++i) {
    // 1 ms rounds: 500 of them fit in min_seconds.
    const long long r = draw_rerandomised_round(stop, 0.001, rng);
    lo = std::min(lo, r);
    hi = std::max(hi, r);
    REQUIRE(r >= 1);
    REQUIRE(r < 500);
  }
  CHECK(lo <= 5);
  CHECK(hi >= 450);   // not only the first rounds (the hole issue 7 found)

  // Slow rounds: min_samples decides; fewer than two rounds: round 0.
  CHECK(draw_rerandomised_round(stop, 10.0, rng) < 10);
  stop.min_samples = 1;
  CHECK(draw_rerandomised_round(stop, 10.0, rng) == 0);
  // Never past max_samples, and a broken estimate is ignored.
  stop.min_samples = 10;
  stop.max_samples = 4;
  for (int i = 0; i < 100; ++i) CHECK(draw_rerandomised_round(stop, 1e-9, rng) < 4);
  stop.max_samples = 100000;
  CHECK(draw_rerandomised_round(stop, 0.0, rng) < 10);
  CHECK(draw_rerandomised_round(stop, -1.0, rng) < 10);
}

TEST_CASE("nondeterministic kernels' checks spread over a measurement of any length", "[harness-core]") {
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    RandomCheckRounds checks(10, seed);
    std::vector<long long> due;
    for (long long round = 0; round < 100000; ++round)
      if (checks.due(round)) due.push_back(round);
    INFO("seed " << seed);
    REQUIRE(!due.empty());
    CHECK(due.front() < 10);                 // before the bench may stop
    CHECK(due.size() >= 8);                  // growing gaps: a few dozen over 100000 rounds
    CHECK(due.size() <= 60);
    CHECK(due.back() >= 100000 / 4);         // still checking late in the measurement
    for (size_t i = 1; i < due.size(); ++i) {
      CHECK(due[i] > due[i - 1]);
      CHECK(due[i] - due[i - 1] <= std::max(10LL, due[i - 1] + 1));
    }
  }
  // Two seeds give different rounds: a kernel cannot learn them.
  RandomCheckRounds a(10, 1), b(10, 2);
  std::set<long long> ra, rb;
  for (long long r = 0; r < 5000; ++r) {
    if (a.due(r)) ra.insert(r);
    if (b.due(r)) rb.insert(r);
  }
  CHECK(ra != rb);
}

TEST_CASE("the verified rotations: all when few, a random distinct subset when many", "[harness-core]") {
  std::mt19937_64 rng(3);
  auto count = [](const std::vector<bool>& v) { return std::count(v.begin(), v.end(), true); };
  CHECK(count(draw_verified_rotations(5, 8, rng)) == 5);
  CHECK(count(draw_verified_rotations(8, 8, rng)) == 8);
  std::vector<int> hits(45, 0);
  for (int i = 0; i < 400; ++i) {
    const auto v = draw_verified_rotations(45, 8, rng);
    REQUIRE(v.size() == 45);
    REQUIRE(count(v) == 8);
    for (int r = 0; r < 45; ++r) hits[r] += v[r];
  }
  // Every rotation gets verified sometimes (8/45 of the time on average).
  CHECK(*std::min_element(hits.begin(), hits.end()) > 20);
  CHECK(count(draw_verified_rotations(10, 0, rng)) == 0);
}
