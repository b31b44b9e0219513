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
  // 1 ms rounds: the bench is sure to take 500 of them (min_seconds), whatever min_samples says.
  long long lo = 1 << 30, hi = 0;
  for (int i = 0; i < 2000; ++i) {
    RerandomisedRound rr(stop, rng);
    long long fired = -1;
    for (long long round = 0; round < 1000 && fired < 0; ++round)
      if (rr.due(round, 0.001 * static_cast<double>(round))) fired = round;
    REQUIRE(fired >= 1);
    REQUIRE(fired <= 500);   // at the latest when min_seconds has passed
    CHECK(rr.done());
    CHECK(rr.round() == fired);
    CHECK_FALSE(rr.due(fired + 1, 10.0));   // once
    lo = std::min(lo, fired);
    hi = std::max(hi, fired);
  }
  CHECK(lo <= 10);
  CHECK(hi >= 450);   // not only the first rounds (the hole issue 7 found)

  // Slow rounds (1 s each): min_samples is what the bench is sure of.
  for (int i = 0; i < 200; ++i) {
    RerandomisedRound rr(stop, rng);
    long long fired = -1;
    for (long long round = 0; round < 100 && fired < 0; ++round)
      if (rr.due(round, static_cast<double>(round))) fired = round;
    CHECK(fired >= 1);
    CHECK(fired <= 9);
  }
  // One sample: round 0 may be it; never later than max_samples allows.
  stop.min_samples = 1;
  stop.min_seconds = 0;
  RerandomisedRound one(stop, rng);
  CHECK(one.first_round() == 0);
  CHECK(one.due(0, 0.0));
  stop.min_samples = 10;
  stop.max_samples = 4;
  for (int i = 0; i < 100; ++i) CHECK(RerandomisedRound(stop, rng).first_round() <= 3);
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
