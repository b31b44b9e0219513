#include "autoresearch/decide/keep_rule.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace ar {
namespace {

// "1.87% faster" / "0.60% slower": a speedup ratio as an engineer says it.
std::string faster_or_slower(double speedup) {
  if (speedup >= 1) return fmt::format("{:.2f}% faster", (speedup - 1) * 100);
  return fmt::format("{:.2f}% slower", (1 / speedup - 1) * 100);
}

// A speedup as a signed gain: 1.0087 -> "+0.87%", 0.99 -> "-1.00%".
std::string gain(double speedup) { return fmt::format("{:+.2f}%", (speedup - 1) * 100); }

std::string pct(double fraction) { return fmt::format("{:.2f}%", fraction * 100); }

std::string ci_text(const Comparison& c) {
  return fmt::format("[95% CI {} to {}]", gain(c.ci_low), gain(c.ci_high));
}

std::string noise_bar_text(const KeepRuleConfig& cfg, double aa_half_width) {
  return fmt::format("the noise bar ({}, {:g}x A/A ±{})", gain(noise_bar(cfg, aa_half_width)), cfg.aa_factor,
                     pct(aa_half_width));
}

std::string min_gain_text(const KeepRuleConfig& cfg) {
  return fmt::format("the min-gain ({})", gain(gain_bar(cfg)));
}

// How far the confirming re-run is from the full measurement, and whether the
// gap is larger than their two CIs make plausible (|z| > 1.96 on the log scale):
// repeated measurements that disagree beyond their CIs are the between-run
// variation no single CI shows.
std::string disagreement(const Comparison& full, const Comparison& confirm) {
  std::string s = fmt::format("full and confirm differ by {:.2f} points",
                              std::abs(full.speedup - confirm.speedup) * 100);
  const double se = std::hypot(full.se_log, confirm.se_log);
  if (se > 0 && full.speedup > 0 && confirm.speedup > 0) {
    const double z = std::log(full.speedup / confirm.speedup) / se;
    s += std::abs(z) > 1.959963984540054 ? " (more than their CIs allow)" : " (within their CIs)";
  }
  return s;
}

}  // namespace

// A noisy workload whose CI still reaches 1 is not held against the candidate.
const WorkloadComparison* significant_regression(const Comparison& c, double margin) {
  for (const WorkloadComparison& w : c.workloads) {
    if (w.ratio < 1 - margin && w.ratio_ci_high < 1) return &w;
  }
  return nullptr;
}

double noise_bar(const KeepRuleConfig& cfg, double aa_half_width) {
  return 1 + cfg.aa_factor * aa_half_width;
}

double gain_bar(const KeepRuleConfig& cfg) { return 1 + cfg.min_gain; }

double keep_threshold(const KeepRuleConfig& cfg, double aa_half_width) {
  return std::max(noise_bar(cfg, aa_half_width), gain_bar(cfg));
}

// The bars are judged on different numbers, deliberately:
//  - the noise bar on the point estimate: it is what keeps noise out, so the
//    estimate itself must clear it;
//  - min_gain, by default on the 95% upper bound ("not clearly below 1%"): a
//    candidate truly 1% faster measures below 1% half the time, so a 1% bar on
//    the point estimate of both stages would keep it in ~25% of trials
//    (measured by the simulation test), against the >= 80% SPEC §8 asks. Gains
//    clearly below min_gain are still refused. min_gain is a floor on what is
//    worth a commit, not the false-keep defence: false keeps are held down by
//    p < alpha in two independent measurements (~alpha^2 under the null), the
//    noise bar, and the A/A simulation and calibration that check both.
Verdict judge_measurement(const Comparison& c, double aa_half_width, const KeepRuleConfig& cfg) {
  Verdict v;
  v.threshold = keep_threshold(cfg, aa_half_width);
  const double gain_estimate = cfg.min_gain_on_upper_bound ? c.ci_high : c.speedup;

  if (c.speedup < noise_bar(cfg, aa_half_width)) {
    v.reason = fmt::format("{}, below {}", faster_or_slower(c.speedup), noise_bar_text(cfg, aa_half_width));
    return v;
  }
  if (gain_estimate < gain_bar(cfg)) {
    v.reason = cfg.min_gain_on_upper_bound
                   ? fmt::format("{}, 95% CI up to {}: clearly below {}", faster_or_slower(c.speedup),
                                 gain(c.ci_high), min_gain_text(cfg))
                   : fmt::format("{}, below {}", faster_or_slower(c.speedup), min_gain_text(cfg));
    return v;
  }
  if (!(c.p_value < cfg.alpha)) {
    v.reason = fmt::format("{} but not significant: p = {:.2g} ≥ {:g}", faster_or_slower(c.speedup),
                           c.p_value, cfg.alpha);
    return v;
  }
  if (const WorkloadComparison* w = significant_regression(c, cfg.regression_margin)) {
    v.reason = fmt::format("regresses {} by {} (allowed {})", w->workload, pct(1 / w->ratio - 1),
                           pct(cfg.regression_margin));
    return v;
  }
  v.pass = true;
  v.reason = fmt::format("{} {}, p = {:.2g}: clears {}{}", faster_or_slower(c.speedup), ci_text(c), c.p_value,
                         noise_bar_text(cfg, aa_half_width),
                         cfg.min_gain_on_upper_bound ? "; the CI reaches " + min_gain_text(cfg)
                                                     : " and " + min_gain_text(cfg));
  return v;
}

Verdict judge_screen(const Comparison& quick, const KeepRuleConfig& cfg) {
  Verdict v;
  v.threshold = 1 + cfg.screen_margin;
  if (quick.ci_high < v.threshold) {
    v.reason = fmt::format("clear loser: {}, 95% CI up to {} (below {})", faster_or_slower(quick.speedup),
                           gain(quick.ci_high), gain(v.threshold));
    return v;
  }
  v.pass = true;
  v.reason = fmt::format("may win: {}, 95% CI up to {}", faster_or_slower(quick.speedup), gain(quick.ci_high));
  return v;
}

Verdict judge_keep(const Comparison& full, const std::optional<Comparison>& confirm,
                   double aa_half_width, const KeepRuleConfig& cfg) {
  Verdict v = judge_measurement(full, aa_half_width, cfg);
  if (!v.pass) {
    v.reason = "full measurement: " + v.reason;
    return v;
  }
  if (!confirm) {
    v.pass = false;
    v.reason = "not confirmed (no confirming re-run)";
    return v;
  }
  Verdict again = judge_measurement(*confirm, aa_half_width, cfg);
  if (!again.pass) {
    again.reason = fmt::format("confirming re-run: {}; the full measurement said {}", again.reason,
                               faster_or_slower(full.speedup));
    return again;
  }
  v.reason += fmt::format("; confirmed: {} {}, p = {:.2g}; {}", faster_or_slower(confirm->speedup),
                          ci_text(*confirm), confirm->p_value, disagreement(full, *confirm));
  return v;
}

std::string describe_verdict(const Verdict& v, std::optional<double> vs_start) {
  if (!v.pass || !vs_start) return v.reason;
  return fmt::format("{}; {:.3f}x vs the start", v.reason, *vs_start);
}

std::string keep_requirements(const KeepRuleConfig& cfg, double aa_half_width) {
  return fmt::format("an estimate of at least {} ({:g}x A/A ±{}), {} {} (min-gain), p < {:g}, "
                     "in the full measurement and again in a confirming re-run",
                     gain(noise_bar(cfg, aa_half_width)), cfg.aa_factor, pct(aa_half_width),
                     cfg.min_gain_on_upper_bound ? "a 95% CI that reaches" : "an estimate of at least",
                     gain(gain_bar(cfg)), cfg.alpha);
}

std::string rule_statement(const KeepRuleConfig& cfg) {
  return fmt::format(
      "Keep a candidate only when, in the full measurement and again in a confirming interleaved re-run, "
      "its speedup estimate clears the noise bar (1 + {:g} x the 95% half-width of the A/A noise), {} "
      "1 + min-gain ({}; a gain clearly below it is refused), p < {:g} (one-sided), and no workload is "
      "significantly slower by more than {}.",
      cfg.aa_factor, cfg.min_gain_on_upper_bound ? "its 95% CI reaches" : "the estimate reaches",
      pct(cfg.min_gain), cfg.alpha, pct(cfg.regression_margin));
}

nlohmann::json to_json(const KeepRuleConfig& cfg) {
  return {{"min_gain", cfg.min_gain},
          {"min_gain_judged_on", cfg.min_gain_on_upper_bound ? "ci_high" : "point"},
          {"aa_factor", cfg.aa_factor},
          {"noise_bar_judged_on", "point"},
          {"alpha", cfg.alpha},
          {"regression_margin", cfg.regression_margin},
          {"screen_margin", cfg.screen_margin},
          {"confirm", true},
          {"statement", rule_statement(cfg)}};
}

}  // namespace ar
