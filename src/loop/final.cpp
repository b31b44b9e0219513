// The end of a run: the best re-measured against the starting source,
// interleaved (the goal is judged on this, not on a product of per-keep ratios),
// one "final" log line, one summary line, and the exit code.
#include <fmt/format.h>

#include "autoresearch/util/errors.h"
#include "steps.h"

namespace ar {

int finish_run(RunContext& ctx, const std::string& stop_reason, bool interrupted) {
  bool measured = false;
  if (!interrupted && ctx.keeps > 0) measured = measure_vs_baseline(ctx, kIncumbentSlot);
  if (ctx.keeps == 0) ctx.vs_baseline = 1;
  double elapsed = ctx.world.clock->now_seconds() - ctx.started_at;
  bool goal_reached = ctx.vs_baseline >= ctx.goal;
  nlohmann::json line = {{"type", "final"},
                         {"time", ctx.world.clock->now_iso8601()},
                         {"stop_reason", stop_reason},
                         {"goal", ctx.goal},
                         {"goal_reached", goal_reached},
                         {"speedup_vs_baseline", ctx.vs_baseline},
                         {"remeasured", measured},
                         {"best_commit", ctx.incumbent.commit},
                         {"best_candidate", ctx.incumbent.candidate_id},
                         {"keeps", ctx.keeps},
                         {"candidates", ctx.last_id},
                         {"session",
                          {{"candidates", ctx.candidates_this_session},
                           {"seconds", elapsed},
                           {"candidates_per_hour", elapsed > 0 ? ctx.candidates_this_session * 3600.0 / elapsed : 0},
                           {"measuring_share", elapsed > 0 ? ctx.gpu_seconds / elapsed : 0},
                           {"gpu_seconds", ctx.gpu_seconds}}}};
  if (ctx.vs_baseline_comparison && ctx.keeps > 0) {
    line["ci"] = {ctx.vs_baseline_comparison->ci_low, ctx.vs_baseline_comparison->ci_high};
    line["workloads"] = to_json(*ctx.vs_baseline_comparison)["workloads"];
  }
  ctx.log->append(line);
  ctx.out().clear_status();
  std::string ci = ctx.vs_baseline_comparison && ctx.keeps > 0
                       ? fmt::format(" [95% CI {:.3f}–{:.3f}]", ctx.vs_baseline_comparison->ci_low,
                                     ctx.vs_baseline_comparison->ci_high)
                       : "";
  ctx.out().event(fmt::format("stopped: {}. best {:.3f}x vs the start{} (goal {:.2f}x {}); kept {} of {} "
                              "candidates; {:.0f} candidates/hour, measuring {:.0f}% of the time; branch {}",
                              stop_reason, ctx.vs_baseline, ci, ctx.goal, goal_reached ? "reached" : "not reached",
                              ctx.keeps, ctx.last_id, line["session"]["candidates_per_hour"].get<double>(),
                              100 * line["session"]["measuring_share"].get<double>(), ctx.branch),
                  goal_reached ? Tone::Good : Tone::Plain);
  if (interrupted) return kExitInterrupted;
  return goal_reached ? kExitOk : kExitStopped;
}

}  // namespace ar
