// The harness's stop rule on synthetic samples (no process, no timing).
#include <cmath>

#include "catch.h"
#include "common/stop_rule.h"

using namespace ar::harness;

TEST_CASE("median CI ranks follow the sign test", "[harness]") {
  auto [lo, hi] = median_ci_ranks(100);
  CHECK(lo == 40);
  CHECK(hi == 59);
  auto small = median_ci_ranks(4);
  CHECK(small.first == 0);
  CHECK(small.second == 3);
}

TEST_CASE("stop rule", "[harness]") {
  StopRule rule;
  rule.min_samples = 10;
  rule.min_seconds = 0.5;
  rule.max_seconds = 15;
  rule.max_samples = 1000;
  rule.target_rel_ci = 0.005;
  std::vector<double> flat(20, 100.0), noisy;
  for (int i = 0; i < 20; ++i) noisy.push_back(100.0 * (1.0 + 0.2 * std::sin(1.7 * i)));

  CHECK(median_ci_rel(flat) == 0.0);
  CHECK(median_ci_rel(noisy) > 0.05);
  CHECK(std::isinf(median_ci_rel({1.0})));
  CHECK(stop_reason(rule, {flat, flat}, 0.1).empty());         // min_seconds not reached
  CHECK(stop_reason(rule, {flat, flat}, 0.6) == "ci");
  CHECK(stop_reason(rule, {flat, noisy}, 0.6).empty());        // every slot must converge
  CHECK(stop_reason(rule, {flat, noisy}, 15.1) == "max_seconds");
  std::vector<double> nine(9, 100.0);
  CHECK(stop_reason(rule, {nine}, 1.0).empty());               // min_samples not reached
  rule.max_samples = 20;
  CHECK(stop_reason(rule, {noisy}, 0.6) == "max_samples");
}

TEST_CASE("a drifting median is not stable; a settled one is", "[harness]") {
  std::vector<double> drift, settled;
  for (int i = 0; i < 64; ++i) drift.push_back(100.0 + i);
  for (int i = 0; i < 64; ++i) settled.push_back(i % 2 ? 90.0 : 110.0 + (i % 3));
  CHECK_FALSE(median_stable(drift, 0.005));
  CHECK(median_stable(std::vector<double>(64, 5.0), 0.005));
  CHECK(median_ci_rel(settled) > 0.005);
}
