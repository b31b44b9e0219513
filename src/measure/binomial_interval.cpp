#include "autoresearch/measure/binomial_interval.h"

#include <algorithm>
#include <cmath>

namespace ar {

namespace {

// P(X <= k) for X ~ Binomial(n, p), summed in log space (n may be thousands).
double binomial_cdf(long long k, long long n, double p) {
  if (k < 0) return 0;
  if (k >= n) return 1;
  if (p <= 0) return 1;
  if (p >= 1) return 0;
  const double log_p = std::log(p), log_q = std::log1p(-p);
  const double log_n = std::lgamma(static_cast<double>(n) + 1);
  double sum = 0;
  for (long long i = 0; i <= k; ++i) {
    const double x = static_cast<double>(i);
    sum += std::exp(log_n - std::lgamma(x + 1) - std::lgamma(static_cast<double>(n - i) + 1) + x * log_p +
                    static_cast<double>(n - i) * log_q);
  }
  return std::min(sum, 1.0);
}

// The p in [0, 1] where the decreasing function f(p) crosses `target`.
template <class F>
double solve_decreasing(F f, double target) {
  double lo = 0, hi = 1;
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (f(mid) > target) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

// The p with P(X <= k | p) = tail (P(X <= k) decreases in p).
double upper_at(long long k, long long n, double tail) {
  if (n <= 0) return 1;
  if (k >= n) return 1;
  return solve_decreasing([&](double p) { return binomial_cdf(k, n, p); }, tail);
}

// The p with P(X >= k | p) = tail, i.e. P(X <= k - 1 | p) = 1 - tail.
double lower_at(long long k, long long n, double tail) {
  if (n <= 0 || k <= 0) return 0;
  return solve_decreasing([&](double p) { return binomial_cdf(k - 1, n, p); }, 1 - tail);
}

}  // namespace

RateInterval clopper_pearson(long long k, long long n, double level) {
  const double tail = (1 - level) / 2;
  k = std::clamp(k, 0LL, std::max(n, 0LL));
  return RateInterval{lower_at(k, n, tail), upper_at(k, n, tail)};
}

double clopper_pearson_upper(long long k, long long n, double level) {
  k = std::clamp(k, 0LL, std::max(n, 0LL));
  return upper_at(k, n, 1 - level);
}

}  // namespace ar
