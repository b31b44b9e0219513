// The end of a run: the best re-measured against the starting source,
// interleaved (the goal is judged on this, not on a product of per-keep ratios),
// one "final" log line, one summary line that says which number is the result,
// and the exit code.
#include <fmt/format.h>

#include "autoresearch/util/errors.h"
#include "steps.h"

namespace ar {

namespace {

// How the run ended, for the log (`autoresearch runs` reads it) and the exit
// code. finish_run is called with interrupted = true for a signal and for the
// infrastructure exit; only a signal sets the stop flag.
struct Ending {
  const char* outcome;
  int exit_code;
};

Ending ending(const RunContext& ctx, bool interrupted, bool goal_reached) {
  if (interrupted) return ctx.stop_requested() ? Ending{"interrupted", kExitInterrupted}
                                               : Ending{"failed", kExitInfrastructure};
  return goal_reached ? Ending{"goal_reached", kExitOk} : Ending{"stopped", kExitStopped};
}

// "the best re-measured now, interleaved with the start" / "nothing kept" /
// "as last measured: not re-measured after the interruption".
std::string how_measured(const RunContext& ctx, bool measured, bool interrupted) {
  if (ctx.keeps == 0) return "nothing kept";
  if (measured) return "the best re-measured now, interleaved with the start";
  return interrupted ? "as last measured; not re-measured after the interruption"
                     : "as last measured; the re-measure at the end failed";
}

}  // namespace

int finish_run(RunContext& ctx, const std::string& stop_reason, bool interrupted) {
  bool measured = false;
  if (!interrupted && ctx.keeps > 0) {
    auto timed = ctx.phases.time(Phase::VsBaseline);
    measured = measure_vs_baseline(ctx, kIncumbentSlot);
  }
  if (ctx.keeps == 0) ctx.vs_baseline = 1;
  double elapsed = ctx.world.clock->now_seconds() - ctx.started_at;
  bool goal_reached = ctx.vs_baseline >= ctx.goal;
  const Ending end = ending(ctx, interrupted, goal_reached);
  const std::string measured_how = how_measured(ctx, measured, interrupted);
  nlohmann::json line = {{"type", "final"},
                         {"time", ctx.world.clock->now_iso8601()},
                         {"stop_reason", stop_reason},
                         {"outcome", end.outcome},
                         {"exit_code", end.exit_code},
                         {"goal", ctx.goal},
                         {"goal_reached", goal_reached},
                         {"speedup_vs_baseline", ctx.vs_baseline},
                         {"remeasured", measured},
                         {"result_measured", measured_how},
                         {"best_commit", ctx.incumbent.commit},
                         {"best_candidate", ctx.incumbent.candidate_id},
                         {"keeps", ctx.keeps},
                         {"candidates", ctx.last_id},
                         {"session",
                          {{"candidates", ctx.candidates_this_session},
                           {"seconds", elapsed},
                           {"candidates_per_hour", elapsed > 0 ? ctx.candidates_this_session * 3600.0 / elapsed : 0},
                           {"measuring_share", elapsed > 0 ? ctx.gpu_seconds / elapsed : 0},
                           {"gpu_seconds", ctx.gpu_seconds}}},
                         {"phases", ctx.phases.totals().to_json(elapsed)}};
  if (ctx.vs_baseline_comparison && ctx.keeps > 0) {
    line["ci"] = {ctx.vs_baseline_comparison->ci_low, ctx.vs_baseline_comparison->ci_high};
    line["workloads"] = to_json(*ctx.vs_baseline_comparison)["workloads"];
  }
  if (ctx.session) {   // under SLURM: the re-measurement's job ends, and is logged here
    ctx.session->end_step();
    if (auto jobs = ctx.session->take_record(); !jobs.is_null()) line["slurm"] = jobs;
  }
  ctx.log->append(line);
  ctx.out().clear_status();
  std::string ci = ctx.vs_baseline_comparison && ctx.keeps > 0
                       ? fmt::format(" [95% CI {:.3f}–{:.3f}]", ctx.vs_baseline_comparison->ci_low,
                                     ctx.vs_baseline_comparison->ci_high)
                       : "";
  ctx.out().event(fmt::format("stopped: {}. result: {:.3f}x vs the start{} ({}); goal {:.2f}x {}; kept {} of {} "
                              "candidates; {:.0f} candidates/hour, measuring {:.0f}% of the time; branch {}",
                              stop_reason, ctx.vs_baseline, ci, measured_how, ctx.goal,
                              goal_reached ? "reached" : "not reached", ctx.keeps, ctx.last_id,
                              line["session"]["candidates_per_hour"].get<double>(),
                              100 * line["session"]["measuring_share"].get<double>(), ctx.branch),
                  goal_reached ? Tone::Good : Tone::Plain);
  ctx.out().event(fmt::format("time: {}; the device was measuring {:.0f}% of the wall time ({:.0f} of {:.0f} s)",
                              phase_breakdown_text(ctx.phases.totals(), elapsed),
                              elapsed > 0 ? 100 * ctx.gpu_seconds / elapsed : 0.0, ctx.gpu_seconds, elapsed));
  if (interrupted)
    ctx.out().event(fmt::format("the run is resumable: autoresearch run --resume {}", ctx.run_id));
  return end.exit_code;
}

}  // namespace ar
