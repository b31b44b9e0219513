#include "common/stop_rule.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ar::harness {

namespace {

double median_of_prefix(const std::vector<double>& samples, size_t n) {
  std::vector<double> v(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(n));
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(v.begin(), mid, v.end());
  double hi = *mid;
  if (n % 2 == 1) return hi;
  double lo = *std::max_element(v.begin(), mid);
  return 0.5 * (lo + hi);
}

}  // namespace

std::pair<size_t, size_t> median_ci_ranks(size_t n) {
  if (n < 6) return {0, n == 0 ? 0 : n - 1};
  const double half = 1.959964 * std::sqrt(static_cast<double>(n)) / 2.0;
  const double center = static_cast<double>(n) / 2.0;
  auto lo = static_cast<long long>(std::floor(center - half));
  auto hi = static_cast<long long>(std::ceil(center + half)) - 1;
  lo = std::max(0LL, lo);
  hi = std::min(static_cast<long long>(n) - 1, hi);
  return {static_cast<size_t>(lo), static_cast<size_t>(hi)};
}

double median_ci_rel(std::vector<double> samples) {
  const size_t n = samples.size();
  if (n < 2) return std::numeric_limits<double>::infinity();
  std::sort(samples.begin(), samples.end());
  const double median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  if (!(median > 0)) return std::numeric_limits<double>::infinity();
  auto [lo, hi] = median_ci_ranks(n);
  return std::max(median - samples[lo], samples[hi] - median) / median;
}

bool median_stable(const std::vector<double>& samples, double target) {
  const size_t n = samples.size();
  if (n < 8) return false;
  const double final_median = median_of_prefix(samples, n);
  if (!(final_median > 0)) return false;
  for (size_t eighths = 4; eighths < 8; ++eighths) {
    const double m = median_of_prefix(samples, n * eighths / 8);
    if (std::fabs(m - final_median) >= target * final_median) return false;
  }
  return true;
}

std::string stop_reason(const StopRule& rule, const std::vector<std::vector<double>>& slots,
                        double elapsed_seconds) {
  const long long rounds = slots.empty() ? 0 : static_cast<long long>(slots.front().size());
  if (rounds >= rule.max_samples) return "max_samples";
  if (elapsed_seconds >= rule.max_seconds) return "max_seconds";
  if (rounds < rule.min_samples || elapsed_seconds < rule.min_seconds) return "";
  bool all_ci = true;
  for (const auto& s : slots) all_ci = all_ci && median_ci_rel(s) <= rule.target_rel_ci;
  if (all_ci) return "ci";
  bool all_stable = true;
  for (const auto& s : slots) all_stable = all_stable && median_stable(s, rule.target_rel_ci);
  return all_stable ? "stable" : "";
}

}  // namespace ar::harness
