// Two measurements the keep rule depends on: the A/A noise (the best against a
// second copy of itself) and the best against the run's starting source, both
// interleaved on the timed workloads.
#include <fmt/format.h>

#include "steps.h"

namespace ar {

static void print_table(RunContext& ctx, const std::vector<WorkloadRow>& rows, const std::string& title) {
  ctx.out().clear_status();
  std::string table = render_bench_table(rows, ctx.roofline, title);
  // One event per line keeps non-TTY logs line-oriented.
  size_t start = 0;
  while (start < table.size()) {
    size_t end = table.find('\n', start);
    if (end == std::string::npos) end = table.size();
    ctx.out().event(table.substr(start, end - start));
    start = end + 1;
  }
}

MeasureOutcome measure_aa_on(const RunContext& ctx, HarnessSession& session, int after_id) {
  return measure_pair(session, kIncumbentSlot, kAaSlot, ctx.timed(), ctx.manifest, full_sampling(ctx.cfg),
                      ctx.seed ^ 0xaaaaull ^ static_cast<unsigned long long>(after_id), "", ctx.cfg);
}

bool record_aa(RunContext& ctx, const char* why, const MeasureOutcome& r, int after_id, std::optional<int> gpu,
               double* half_width) {
  const std::string on_gpu = gpu ? fmt::format(" on GPU {}", *gpu) : "";
  ctx.gpu_seconds += r.gpu_seconds;
  if (r.status != StepStatus::Ok) {
    ctx.out().event("A/A measurement" + on_gpu + " failed: " + r.reason, Tone::Bad);
    return false;
  }
  *half_width = aa_half_width(r.comparison);
  auto timed = ctx.timed();
  auto rows = table_rows(ctx.manifest, timed, r, false);
  nlohmann::json line = {{"type", "aa"},
                         {"time", ctx.world.clock->now_iso8601()},
                         {"why", why},
                         {"after_id", after_id},
                         {"half_width", *half_width},
                         {"speedup", r.comparison.speedup},
                         {"ci", {r.comparison.ci_low, r.comparison.ci_high}},
                         {"gpu_seconds", r.gpu_seconds},
                         {"workloads", bench_rows_json(rows, ctx.roofline)},
                         {"extras", r.extras}};
  if (gpu) {
    line["gpu"] = *gpu;
  } else if (ctx.session) {
    // The noise is a measurement step of its own: under SLURM, its job ends here.
    ctx.session->end_step();
    if (auto jobs = ctx.session->take_record(); !jobs.is_null()) line["slurm"] = jobs;
  }
  ctx.log->append(line);
  if (std::string(why) == "baseline") {
    print_table(ctx, rows, "starting kernel (" + ctx.manifest.name + ")");
    ctx.log->append({{"type", "baseline"},
                     {"time", ctx.world.clock->now_iso8601()},
                     {"tunables", ctx.incumbent.tunables},
                     {"bench", {{"workloads", bench_rows_json(rows, ctx.roofline)}}},
                     {"aa", {{"half_width", *half_width}}}});
  }
  ctx.out().event(fmt::format("noise (A/A, {}){}: ±{:.2f}% (estimate {:.4f}x) → a keep needs {}", why, on_gpu,
                              *half_width * 100, r.comparison.speedup, keep_requirements(ctx.rule, *half_width)));
  return true;
}

bool calibrate_aa(RunContext& ctx, const char* why) {
  ctx.out().status(ctx.status_prefix() + " measuring the noise (A/A) on the timed workloads");
  auto r = measure_aa_on(ctx, *ctx.session, ctx.last_id);
  // With several GPUs, the first one's A/A line says which it is like the others'.
  std::optional<int> gpu;
  if (ctx.gpus.size() > 1) gpu = ctx.cfg.gpu;
  if (!record_aa(ctx, why, r, ctx.last_id, gpu, &ctx.aa_half_width)) return false;
  ctx.aa_measured_at = ctx.last_id;
  return true;
}

bool measure_vs_baseline(RunContext& ctx, const std::string& slot) {
  ctx.out().status(ctx.status_prefix() + " measuring the best against the starting kernel");
  auto timed = ctx.timed();
  auto r = measure_pair(*ctx.session, kBaseSlot, slot, timed, ctx.manifest, full_sampling(ctx.cfg),
                        ctx.seed ^ 0xbbbbull ^ static_cast<unsigned long long>(ctx.last_id), "", ctx.cfg);
  ctx.gpu_seconds += r.gpu_seconds;
  if (r.status != StepStatus::Ok) {
    ctx.out().event("measuring against the baseline failed: " + r.reason, Tone::Bad);
    return false;
  }
  ctx.vs_baseline = r.comparison.speedup;
  ctx.vs_baseline_comparison = r.comparison;
  return true;
}

}  // namespace ar
