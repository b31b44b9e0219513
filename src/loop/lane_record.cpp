// A multi-GPU run's writing side, on the loop's thread only: a candidate's
// log line and what the run learns from it, and the keep that follows a win
// (on the GPU that judged it: the sanitizer, the best against the start, the
// commit).
#include <fmt/format.h>

#include "autoresearch/util/fs.h"
#include "gpu_lane.h"

namespace fs = std::filesystem;

namespace ar {

// Only once the line is written do the other GPUs see the new incumbent.
void keep_on_lane(RunContext& ctx, GpuLane& lane, Flight& f, const LaneOutcome& o,
                  std::deque<fs::path>& failures, std::string* log_failed) {
  const auto timed_workloads = ctx.timed();
  const fs::path artifact = f.built->build.artifact;
  std::string note;
  std::optional<std::string> finding;
  {
    auto timed = ctx.phases.time(Phase::Sanitizer);
    finding = run_sanitizers(ctx, artifact, &note, lane.gpu);
  }
  nlohmann::json extra = {
      {"sanitizer", {{"note", note}, {"finding", finding ? nlohmann::json(*finding) : nlohmann::json()}}}};
  if (finding) {
    record_candidate_line(ctx, f, &lane, &o, Decision::Wrong, "sanitizer: " + *finding, extra, failures, log_failed);
    return;
  }
  double vs_base = ctx.vs_baseline * o.full.speedup;
  std::optional<Comparison> vs_comparison;
  {
    auto timed = ctx.phases.time(Phase::VsBaseline);
    auto r = measure_pair(*lane.session, kBaseSlot, kCandidateSlot, timed_workloads, ctx.manifest,
                          full_sampling(ctx.cfg), ctx.seed ^ 0xbbbbull ^ static_cast<unsigned long long>(f.id), "",
                          ctx.cfg);
    ctx.gpu_seconds += r.gpu_seconds;
    if (r.status == StepStatus::Ok) {
      vs_base = r.comparison.speedup;
      vs_comparison = r.comparison;
    } else {
      ctx.out().event(fmt::format("measuring against the baseline on GPU {} failed: {}", lane.gpu, r.reason),
                       Tone::Bad);
    }
  }
  extra["vs_baseline"] = vs_base;
  if (vs_comparison) extra["vs_baseline_ci"] = {vs_comparison->ci_low, vs_comparison->ci_high};
  std::string sha;
  try {
    auto timed = ctx.phases.time(Phase::Git);
    write_file_atomic(ctx.package_dir / ctx.manifest.tunables_file, tunables_to_json_text(f.proposal.tunables));
    extra["files"] = ctx.git->changed_files(ctx.package_prefix);
    extra["diff"] = ctx.git->diff();
    sha = ctx.git->commit_all(commit_message(ctx, f.id, f.proposal, o.full, o.confirm, o.verdict.threshold, vs_base));
  } catch (const std::exception& e) {
    restore_worktree(ctx);
    record_candidate_line(ctx, f, &lane, &o, Decision::Error, std::string("git commit failed: ") + e.what(), extra,
                          failures, log_failed);
    return;
  }
  extra["commit"] = sha;
  fs::path kept = ctx.run_dir / "incumbent" / (std::to_string(f.id) + artifact.extension().string());
  fs::create_directories(kept.parent_path());
  fs::copy_file(artifact, kept, fs::copy_options::overwrite_existing);
  if (!record_candidate_line(ctx, f, &lane, &o, Decision::Keep, describe_verdict(o.verdict, vs_base), extra, failures,
                             log_failed)) {
    restore_worktree(ctx);   // a commit the log does not know is undone
    return;
  }
  ctx.incumbent = Incumbent{sha, f.proposal.tunables, kept, ctx.incumbent.source_hash, f.id};
  ctx.vs_baseline = vs_base;
  if (vs_comparison) ctx.vs_baseline_comparison = vs_comparison;
  ctx.keeps++;
  ctx.last_keep_id = f.id;
  ctx.incumbent_quick_us = o.quick_us;
  ctx.incumbent_build = build_json(*f.built);
  ctx.incumbent_rows = o.rec.contains("bench") ? o.rec["bench"].value("workloads", nlohmann::json()) : nlohmann::json();
  ctx.untried_at_keep = ctx.agent->untried();
  // The other GPUs load the new incumbent before their next candidate.
  lane.loaded_incumbent = -1;
  bool loaded = true;
  for (const char* slot : {kIncumbentSlot, kAaSlot}) loaded = lane.session->load(slot, kept).ok() && loaded;
  if (loaded) lane.loaded_incumbent = f.id;
}

void restore_worktree(RunContext& ctx) {
  try {
    ctx.git->restore(ctx.branch, ctx.incumbent.commit);
  } catch (const std::exception& e) {
    ctx.out().event(std::string("could not restore the worktree: ") + e.what(), Tone::Bad);
  }
}

bool record_candidate_line(RunContext& ctx, Flight& f, const GpuLane* lane, const LaneOutcome* o, Decision decision,
                           const std::string& reason, const nlohmann::json& extra, std::deque<fs::path>& failures,
                           std::string* log_failed) {
  const Proposal& p = f.proposal;
  if (f.started.empty()) {
    f.started = ctx.world.clock->now_iso8601();
    f.t0 = ctx.world.clock->now_seconds();
  }
  nlohmann::json rec = {{"type", "candidate"}, {"id", f.id}, {"started", f.started}, {"agent", p.agent},
                        {"model", p.model}, {"idea", p.idea}, {"tunables", p.tunables}, {"base", p.base_id},
                        {"tokens", {{"in", p.tokens_in()}, {"out", p.tokens_out()}}}, {"cost_usd", p.cost_usd()}};
  rec["gpu"] = lane ? nlohmann::json(lane->gpu) : nlohmann::json();
  if (f.built) rec["build"] = build_json(*f.built);
  if (o) {
    for (const auto& [k, v] : o->rec.items()) rec[k] = v;
    rec["aa_half_width"] = o->aa_half_width;
    if (o->quick_us) rec["quick_geomean_us"] = *o->quick_us;
  }
  if (!f.earlier.empty()) rec["stale_wins"] = f.earlier;
  for (const auto& [k, v] : extra.items()) rec[k] = v;
  if (!rec.contains("commit")) rec["commit"] = nullptr;
  rec["decision"] = decision_name(decision);
  rec["reason"] = reason;
  rec["finished"] = ctx.world.clock->now_iso8601();
  rec["seconds"] = ctx.world.clock->now_seconds() - f.t0;
  rec["phases"] = ctx.take_phases();
  {
    auto timed = ctx.phases.time(Phase::Log);
    try {
      ctx.log->append(rec);
    } catch (const std::exception& e) {
      *log_failed = e.what();
      return false;
    }
  }

  ctx.last_id = std::max(ctx.last_id, f.id);
  ctx.candidates_this_session++;
  ctx.tokens_total += p.tokens_in() + p.tokens_out();
  ctx.cost_total += p.cost_usd();
  Outcome out;
  out.decision = decision;
  out.reason = reason;
  if (o) {
    out.quick_geomean_us = o->quick_us;
    if (o->incumbent_quick_us && decision != Decision::Keep) ctx.incumbent_quick_us = o->incumbent_quick_us;
  }
  if (rec.contains("speedup") && rec["speedup"].is_number()) out.speedup = rec["speedup"].get<double>();
  ctx.history.push_back({f.id, p.agent, p.idea, p.tunables, out, ""});
  if (describes_candidate(decision)) {
    ctx.agent->observe(p, out);
    CachedResult c;
    c.context_key = ctx.cache_context.key();
    c.tunables = p.tunables;
    c.outcome = out;
    if (o) c.median_us = o->medians;
    c.run_id = ctx.run_id;
    c.candidate_id = f.id;
    ctx.cache->add(c);
  }
  if (decision == Decision::BuildError && f.built) ctx.recent_build_errors = f.built->build.errors;
  if (decision != Decision::BuildError && f.built)
    ctx.recent_build_warnings = build_warnings_line(f.id, build_report_json(f.built->build));
  clean_build_dir(ctx, failures, f.id, decision);
  Tone tone = decision == Decision::Keep ? Tone::Good : decision == Decision::Discard ? Tone::Dim : Tone::Bad;
  std::string speed = out.speedup ? fmt::format(" {:.3f}x", *out.speedup) : "";
  std::string on = lane ? fmt::format(" (GPU {})", lane->gpu) : "";
  ctx.out().event(fmt::format("#{} {}{}{} — {} — {}", f.id, decision_name(decision), speed, on, p.idea, reason), tone);
  return true;
}

}  // namespace ar
