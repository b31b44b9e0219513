#include "calibrate_report.h"

#include <fmt/format.h>

namespace ar {

// The rule as the run's log header states it (to_json), plus the refresh
// interval; min_gain_on_upper_bound as the committed result files spell it.
static nlohmann::json keep_rule_json(const CalibratePlan& plan) {
  nlohmann::json j = to_json(plan.rule);
  j["min_gain_on_upper_bound"] = plan.rule.min_gain_on_upper_bound;
  j["aa_refresh"] = plan.aa_refresh;
  return j;
}

namespace {

std::string pct(double fraction) { return fmt::format("{:.2f}%", fraction * 100); }

std::string signed_pct(double speedup) { return fmt::format("{:+.2f}%", (speedup - 1) * 100); }

nlohmann::json comparison_brief(const Comparison& c) {
  nlohmann::json per = nlohmann::json::array();
  for (const auto& w : c.workloads)
    per.push_back({{"workload", w.workload},
                   {"ratio", w.ratio},
                   {"ci", {w.ratio_ci_low, w.ratio_ci_high}},
                   {"incumbent_median_us", w.incumbent.median},
                   {"candidate_median_us", w.candidate.median},
                   {"rounds", w.candidate.n}});
  return {{"speedup", c.speedup}, {"ci", {c.ci_low, c.ci_high}}, {"p_value", c.p_value}, {"workloads", per}};
}

nlohmann::json trial_json(const TrialRecord& t) {
  return {{"trial", t.trial},
          {"keep", t.keep},
          {"reason", t.reason},
          {"threshold", t.threshold},
          {"aa_half_width", t.aa_half_width},
          {"full", comparison_brief(t.full)},
          {"confirm", t.confirm ? comparison_brief(*t.confirm) : nlohmann::json()},
          {"gpu_seconds", t.gpu_seconds},
          {"mean_sm_mhz", t.mean_sm_mhz}};
}

nlohmann::json summary_json(const CalibrateSummary& s) {
  return {{"trials", s.trials},
          {"keeps", s.keeps},
          {"keep_rate", s.keep_rate},
          {"keep_rate_ci95", {s.rate_low, s.rate_high}},
          {"keep_rate_ci_method", "Clopper-Pearson (exact), two-sided"},
          {"keep_rate_upper95_one_sided", s.rate_upper_95},
          {"median_speedup", s.median_speedup},
          {"median_aa_half_width", s.median_aa_half_width},
          {"median_sm_mhz", s.median_sm_mhz},
          {"gpu_seconds", s.gpu_seconds}};
}

std::string workload_names(const std::vector<Workload>& workloads) {
  std::string names;
  for (const auto& w : workloads) names += (names.empty() ? "" : ",") + w.name;
  return names;
}

}  // namespace

std::string calibrate_title(const CalibrateContext& c) {
  const double planted = c.plan->planted;
  return fmt::format("calibrate {} on {} — {}, {}", c.kernel, c.device.value("name", "?"), workload_names(c.workloads),
                     planted > 0 ? fmt::format("planted {} (candidate truly {:.4f}x)", pct(planted), 1 + planted)
                                 : std::string("A/A (the kernel against itself)"));
}

std::string aa_line(const AaMeasurement& aa, const std::vector<Workload>& workloads) {
  std::string medians;
  for (size_t i = 0; i < aa.median_us.size() && i < workloads.size(); ++i)
    medians += fmt::format(" {} {:.2f} µs", workloads[i].name, aa.median_us[i]);
  return fmt::format("A/A before trial {}: ±{} (geomean {:.4f}); medians:{}", aa.before_trial, pct(aa.half_width),
                     aa.speedup, medians);
}

std::string pad_line(double pad_us, const Workload& w, double planted) {
  return fmt::format("planted: slot a padded by {:.3f} µs on {} (the candidate is truly {:.4f}x faster)", pad_us,
                     w.name, 1 + planted);
}

// One line per trial, complete on its own (logs are often not a TTY).
std::string trial_line(const TrialRecord& t, int total, long long keeps_so_far) {
  const std::string confirm = t.confirm ? fmt::format(", confirm {}", signed_pct(t.confirm->speedup)) : "";
  return fmt::format("trial {:>{}}/{} {:<7} full {}{} (kept {}/{}) — {}", t.trial, std::to_string(total).size(), total,
                     t.keep ? "KEEP" : "discard", signed_pct(t.full.speedup), confirm, keeps_so_far, t.trial,
                     t.reason);
}

std::string calibrate_text(const CalibrateContext& c, const CalibrateOutcome& o, const CalibrateSummary& s) {
  std::string out = calibrate_title(c) + "\n";
  out += fmt::format("  trials                {}{}\n", s.trials,
                     o.status == StepStatus::Ok ? "" : fmt::format(" of {} (stopped)", c.plan->trials));
  out += fmt::format("  keeps                 {} ({})\n", s.keeps, pct(s.keep_rate));
  out += fmt::format("  keep rate, 95% CI     {} to {} (exact Clopper-Pearson); one-sided 95% upper bound {}\n",
                     pct(s.rate_low), pct(s.rate_high), pct(s.rate_upper_95));
  out += fmt::format("  median speedup        {:.4f} (planted {:.4f})\n", s.median_speedup, 1 + c.plan->planted);
  out += fmt::format("  median A/A half-width ±{}\n", pct(s.median_aa_half_width));
  if (s.median_sm_mhz > 0)
    out += fmt::format("  SM clock              median {:.0f} MHz (the pad is timed for the default, {:.0f} MHz)\n",
                       s.median_sm_mhz, c.device.value("default_sm_mhz", -1.0));
  for (size_t i = 0; i < o.pad_us.size() && i < c.workloads.size(); ++i)
    out += fmt::format("  pad on slot a         {:.3f} µs on {}\n", o.pad_us[i], c.workloads[i].name);
  out += fmt::format("  GPU seconds           {:.1f}\n", s.gpu_seconds);
  out += fmt::format("  wall seconds          {:.1f}\n", c.wall_seconds);
  return out;
}

nlohmann::json calibrate_json(const CalibrateContext& c, const CalibrateOutcome& o, const CalibrateSummary& s) {
  const CalibratePlan& plan = *c.plan;
  nlohmann::json workloads = nlohmann::json::array();
  for (size_t i = 0; i < c.workloads.size(); ++i) {
    nlohmann::json w = {{"name", c.workloads[i].name}};
    if (!o.aa.empty() && i < o.aa.front().median_us.size()) w["aa_median_us"] = o.aa.front().median_us[i];
    w["pad_us"] = i < o.pad_us.size() ? o.pad_us[i] : 0.0;
    workloads.push_back(w);
  }
  nlohmann::json aa = nlohmann::json::array();
  for (const auto& m : o.aa)
    aa.push_back({{"before_trial", m.before_trial},
                  {"half_width", m.half_width},
                  {"speedup", m.speedup},
                  {"median_us", m.median_us},
                  {"gpu_seconds", m.gpu_seconds}});
  nlohmann::json trials = nlohmann::json::array();
  for (const auto& t : o.trials) trials.push_back(trial_json(t));
  return {{"kernel", c.kernel},
          {"tunables", c.tunables},
          {"device", c.device},
          {"workloads", workloads},
          {"planted", plan.planted},
          {"true_speedup", 1 + plan.planted},
          {"pad_slot", plan.planted > 0 ? "a" : ""},
          {"trials_requested", plan.trials},
          {"complete", o.status == StepStatus::Ok},
          {"stopped", o.status == StepStatus::Ok ? nlohmann::json() : nlohmann::json(o.reason)},
          {"sampling",
           {{"min_samples", plan.sampling.min_samples},
            {"min_seconds", plan.sampling.min_seconds},
            {"max_seconds", plan.sampling.max_seconds},
            {"target_rel_ci", plan.sampling.target_rel_ci},
            {"cold", plan.sampling.cold}}},
          {"keep_rule", keep_rule_json(plan)},
          {"seed", plan.seed},
          {"summary", summary_json(s)},
          {"wall_seconds", c.wall_seconds},
          {"aa", aa},
          {"trials", trials}};
}

}  // namespace ar
