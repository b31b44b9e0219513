#pragma once
// Statistics of raw timing samples. The harness reports raw samples; every
// number the driver prints or decides on is computed here.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ar {

struct Summary {
  size_t n = 0;
  double min = 0, q1 = 0, median = 0, q3 = 0, max = 0, mean = 0;
  // 95% distribution-free CI of the median (order statistics), relative to it.
  double median_ci_rel = 0;
};

Summary summarize(std::vector<double> values);

// 0-based indices [lo, hi] into n sorted values that bound a 95% CI of their
// median (sign test: the count below the median is Binomial(n, 1/2)). For n <= 5
// no such pair reaches 95%; the range (min, max) is returned.
std::pair<size_t, size_t> median_ci_ranks(size_t n);

nlohmann::json to_json(const Summary& s);

// One workload measured interleaved: pair i holds the incumbent's and the
// candidate's sample taken next to each other, so slow drift cancels in the ratio.
struct PairedSamples {
  std::string workload;
  std::vector<double> incumbent_us;
  std::vector<double> candidate_us;
};

// Per-workload comparison from the paired log-ratios r_i = ln(inc_i / cand_i):
// the estimate is their median (robust to outliers and heavy tails) and the CI
// comes from sign-test order statistics (no distribution assumed).
struct WorkloadComparison {
  std::string workload;
  Summary incumbent, candidate;
  double ratio = 1;           // exp(median r): > 1 means the candidate is faster
  double ratio_ci_low = 1, ratio_ci_high = 1;   // 95%
  double se_log = 0;          // standard error of ln(ratio), from the CI width
};

struct Comparison {
  std::vector<WorkloadComparison> workloads;
  // The workloads the geomean is over, where it is over some of them (a run's --focus); empty: all.
  // Every workload stays in `workloads` (the regression check reads them all).
  std::vector<std::string> judged_on;
  double speedup = 1;         // geometric mean of the per-workload ratios
  double ci_low = 1, ci_high = 1;  // 95%, from the combined standard error
  double se_log = 0;          // of ln(speedup)
  double p_value = 0.5;       // one-sided, H0: speedup <= 1
};

// `judged_on`: the workloads whose ratios the geomean, its CI and p are computed from (the others are
// compared too, for the regression check); empty, or none of them measured: all.
Comparison compare(const std::vector<PairedSamples>& measurements, const std::vector<std::string>& judged_on = {});
nlohmann::json to_json(const Comparison& c);

// Half-width of the 95% CI of an A/A comparison's geomean, as a fraction
// (0.004 = +-0.4%): the noise floor a keep must clear twice over.
double aa_half_width(const Comparison& aa);

}  // namespace ar
