#pragma once
// The decision of SPEC §6: keep a candidate only when it is faster by more than
// the noise, significantly, again in a confirming re-run, and without slowing
// any workload beyond a margin. Pure functions of comparisons, so the rule is
// tested by simulation on synthetic samples over many thousands of trials.
#include <optional>
#include <string>

#include "autoresearch/measure/sample_stats.h"

namespace ar {

struct KeepRuleConfig {
  // A keep needs speedup >= 1 + aa_factor * A/A half-width, and a speedup of
  // at least 1 + min_gain (judged as min_gain_on_upper_bound says).
  double min_gain = 0.01;
  double aa_factor = 2.0;
  double alpha = 0.01;               // one-sided significance level
  double regression_margin = 0.02;   // no workload may be slower than 1 - margin (significantly)
  // Screening: a candidate whose 95% upper bound is below 1 + screen_margin
  // cannot plausibly win; it is discarded without the full measurement.
  double screen_margin = 0.0;
  // How min_gain is judged: against the 95% upper bound of the speedup (true)
  // or its point estimate (false). The A/A part of the threshold is always
  // judged on the point estimate. See keep_rule.cpp for why.
  bool min_gain_on_upper_bound = true;
};

struct Verdict {
  bool pass = false;
  std::string reason;       // one sentence, for the log and the status line
  double threshold = 1;     // the speedup that was required
};

// The threshold speedup: 1 + max(min_gain, aa_factor * aa_half_width).
double keep_threshold(const KeepRuleConfig& cfg, double aa_half_width);

// One measurement (full, or the confirming re-run) against the rule.
Verdict judge_measurement(const Comparison& c, double aa_half_width, const KeepRuleConfig& cfg);

// The quick screen: pass means "may win, measure it fully".
Verdict judge_screen(const Comparison& quick, const KeepRuleConfig& cfg);

// The whole rule: the full measurement and the confirmation must both pass.
Verdict judge_keep(const Comparison& full, const std::optional<Comparison>& confirm,
                   double aa_half_width, const KeepRuleConfig& cfg);

}  // namespace ar
