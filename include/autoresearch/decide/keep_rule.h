#pragma once
// The decision of SPEC §6: keep a candidate only when it is faster by more than
// the noise, significantly, again in a confirming re-run, and without slowing
// any workload beyond a margin. Pure functions of comparisons, so the rule is
// tested by simulation on synthetic samples over many thousands of trials.
//
// The rule, as every message states it (rule_statement()): in the full
// measurement and again in the confirming re-run,
//   - the estimate clears the noise bar, 1 + aa_factor * A/A half-width;
//   - the 95% CI reaches the min-gain, 1 + min_gain (a gain clearly below it is
//     refused; see keep_rule.cpp for why the CI and not the estimate);
//   - p < alpha, one-sided;
//   - no workload is significantly slower than 1 - regression_margin.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "autoresearch/measure/sample_stats.h"

namespace ar {

struct KeepRuleConfig {
  double min_gain = 0.01;
  double aa_factor = 2.0;
  double alpha = 0.01;               // one-sided significance level
  double regression_margin = 0.02;   // no workload may be slower than 1 - margin (significantly)
  // Screening: a candidate whose 95% upper bound is below 1 + screen_margin
  // cannot plausibly win; it is discarded without the full measurement.
  double screen_margin = 0.0;
  // How min_gain is judged: against the 95% upper bound of the speedup (true,
  // "ci_high") or its point estimate (false, "point"). The noise bar is always
  // judged on the point estimate.
  bool min_gain_on_upper_bound = true;
};

struct Verdict {
  bool pass = false;
  std::string reason;       // one sentence, for the log and the status line
  double threshold = 1;     // keep_threshold(): the larger bar, for display
};

// The first workload slower than 1 - margin *and* significantly so, or null.
const WorkloadComparison* significant_regression(const Comparison& c, double margin);

// The two bars, as speedups (1.01 = 1% faster).
double noise_bar(const KeepRuleConfig& cfg, double aa_half_width);
double gain_bar(const KeepRuleConfig& cfg);
// The larger of the two: 1 + max(min_gain, aa_factor * aa_half_width). Only a
// display figure: the two bars are judged on different numbers (see above).
double keep_threshold(const KeepRuleConfig& cfg, double aa_half_width);

// One measurement (full, or the confirming re-run) against the rule.
Verdict judge_measurement(const Comparison& c, double aa_half_width, const KeepRuleConfig& cfg);

// The quick screen: pass means "may win, measure it fully".
Verdict judge_screen(const Comparison& quick, const KeepRuleConfig& cfg);

// The whole rule: the full measurement and the confirmation must both pass.
// The reason of a keep names both measurements and how far they disagree.
Verdict judge_keep(const Comparison& full, const std::optional<Comparison>& confirm,
                   double aa_half_width, const KeepRuleConfig& cfg);

// The sentence printed and logged for a judged candidate: the verdict's reason
// and, for a keep, the best against the start ("; 1.245x vs the start").
std::string describe_verdict(const Verdict& v, std::optional<double> vs_start);

// What a keep needs now, for the noise line of a run ("an estimate of at least
// +0.04% (2x A/A ±0.02%), a 95% CI that reaches +1.00% (min-gain), p < 0.01,
// in the full measurement and again in a confirming re-run").
std::string keep_requirements(const KeepRuleConfig& cfg, double aa_half_width);

// The rule in one sentence, independent of the noise (log header, README, --help).
std::string rule_statement(const KeepRuleConfig& cfg);

// The log header's "keep_rule": every parameter, how each bar is judged
// ("min_gain_judged_on": "ci_high" or "point"), and rule_statement().
nlohmann::json to_json(const KeepRuleConfig& cfg);

}  // namespace ar
