#pragma once
// Exact (Clopper–Pearson) bounds of a rate from k successes in n trials: what
// `calibrate` reports for the keep rule's false-keep rate and power (SPEC §8).
// Exact, not a normal approximation, because the interesting counts are 0-3
// keeps in 300 trials, where the approximation is worst.
namespace ar {

struct RateInterval {
  double low = 0;
  double high = 1;
};

// Two-sided interval with the given coverage (0.95: 2.5% in each tail).
RateInterval clopper_pearson(long long k, long long n, double level = 0.95);

// One-sided upper bound: the largest rate p with P(X <= k | n, p) >= 1 - level.
// With k = 0 it is 1 - (1 - level)^(1/n) (the "rule of three" ~ 3/n at 95%).
double clopper_pearson_upper(long long k, long long n, double level = 0.95);

}  // namespace ar
