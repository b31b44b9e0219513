#pragma once
// When a bench stops taking samples (PROTOCOL.md "bench"). Only the decision to
// stop lives in the harness; the driver recomputes every statistic it reports
// from the raw samples.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace ar::harness {

struct StopRule {
  long long min_samples = 10;
  double min_seconds = 0.5;
  double max_seconds = 15;
  long long max_samples = 100000;
  double target_rel_ci = 0.005;
};

// 0-based ranks [lo, hi] into n sorted samples bounding a ~95% CI of their
// median (sign test, normal approximation); (0, n-1) when n is too small.
std::pair<size_t, size_t> median_ci_ranks(size_t n);

// max(median - lo, hi - median) / median of the 95% CI; infinity for n < 2.
double median_ci_rel(std::vector<double> samples);

// True when the running median, taken at n/2, 5n/8, 3n/4, 7n/8 and n samples,
// stays within `target` of the final median: more samples stopped moving it.
bool median_stable(const std::vector<double>& samples, double target);

// "" to keep sampling, otherwise why to stop: "ci", "stable", "max_seconds",
// "max_samples". `slots` holds each slot's kept samples (aligned by round).
std::string stop_reason(const StopRule& rule, const std::vector<std::vector<double>>& slots,
                        double elapsed_seconds);

}  // namespace ar::harness
