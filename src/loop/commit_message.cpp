// The commit message of a kept candidate carries its numbers, so the branch
// alone tells the story the log tells.
#include <fmt/format.h>

#include "autoresearch/decide/keep_rule.h"
#include "steps.h"

namespace ar {

std::string commit_message(const RunContext& ctx, int id, const Proposal& p, const Comparison& full,
                           const Comparison& confirm, double threshold, double vs_baseline) {
  std::string m = fmt::format("autoresearch: keep #{} of {}: {:.3f}x vs previous best, {:.3f}x vs start\n\n",
                              id, ctx.manifest.name, full.speedup, vs_baseline);
  m += fmt::format("idea: {}\n", p.idea);
  m += fmt::format("agent: {}{}\n", p.agent, p.model.empty() ? "" : " (" + p.model + ")");
  std::string t;
  for (const auto& [k, v] : p.tunables) t += fmt::format("{}{}={}", t.empty() ? "" : " ", k, v);
  m += fmt::format("tunables: {}\n", t);
  m += fmt::format("speedup: {:.4f} [95% CI {:.4f}, {:.4f}], p = {:.2g}\n", full.speedup, full.ci_low, full.ci_high,
                   full.p_value);
  m += fmt::format("rule: {}\n", keep_requirements(ctx.rule, ctx.aa_half_width));
  m += fmt::format("confirmed: {:.4f} [95% CI {:.4f}, {:.4f}]\n", confirm.speedup, confirm.ci_low, confirm.ci_high);
  m += "workloads (median µs, previous → this):\n";
  for (const auto& w : full.workloads)
    m += fmt::format("  {:<24} {:>12.2f} → {:>12.2f}  {:.3f}x [{:.3f}, {:.3f}]\n", w.workload,
                     w.incumbent.median, w.candidate.median, w.ratio, w.ratio_ci_low, w.ratio_ci_high);
  m += fmt::format("\nrun: {} candidate {}\n", ctx.run_id, id);
  return m;
}

}  // namespace ar
