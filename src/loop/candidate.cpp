// One candidate, from proposal to log line: apply, guard, build, verify (quick),
// screen, verify (all + hidden), measure, confirm, sanitize, then keep (commit)
// or revert. Each step can end the candidate with a decision and a reason.
#include <cmath>

#include <fmt/format.h>

#include "autoresearch/agents/tuner.h"
#include "autoresearch/guard/guard.h"
#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"
#include "steps.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

// What a failed harness step means for the candidate.
std::string decision_for(StepStatus s, const std::string& reason) {
  switch (s) {
    case StepStatus::Wrong: return "wrong";
    case StepStatus::Crash: return "crash";
    case StepStatus::Timeout: return "timeout";
    case StepStatus::Cancelled: return "interrupted";
    case StepStatus::Ok: return "";
    case StepStatus::Guard: return "rejected_by_guard";
    case StepStatus::Error:
      if (reason.find("capture_error") != std::string::npos) return "rejected_by_guard";
      if (reason.find("load_error") != std::string::npos) return "build_error";
      if (reason.find("launch_error") != std::string::npos) return "crash";
      return "error";   // the harness or the problem failed: not the candidate's doing
  }
  return "error";
}

double geomean_us(const MeasureOutcome& r, bool candidate) {
  if (r.pairs.empty()) return 0;
  double s = 0;
  for (const auto& p : r.pairs) s += std::log(summarize(candidate ? p.candidate_us : p.incumbent_us).median);
  return std::exp(s / r.pairs.size());
}

nlohmann::json comparison_json(const RunContext& ctx, const std::vector<Workload>& w, const MeasureOutcome& r) {
  nlohmann::json j = to_json(r.comparison);
  j["gpu_seconds"] = r.gpu_seconds;
  j["workloads"] = bench_rows_json(table_rows(ctx.manifest, w, r, true), ctx.roofline);
  j["extras"] = r.extras;
  return j;
}

class CandidateRun {
 public:
  CandidateRun(RunContext& ctx, const Proposal& p, int id) : ctx_(ctx), p_(p), id_(id) {
    t0_ = ctx.world.clock->now_seconds();
    rec_ = {{"type", "candidate"}, {"id", id}, {"started", ctx.world.clock->now_iso8601()},
            {"agent", p.agent}, {"model", p.model}, {"idea", p.idea}, {"tunables", p.tunables},
            {"tokens", {{"in", p.tokens_in}, {"out", p.tokens_out}}}, {"cost_usd", p.cost_usd}};
    seed_ = ctx.seed + 1000003ull * static_cast<unsigned long long>(id);
  }

  CandidateResult run(PreparedBuild* prebuilt) {
    if (!apply()) return result_;
    if (!guard_scope()) return result_;
    if (!build(prebuilt)) return result_;
    if (!verify(ctx_.quick(), "quick")) return result_;
    if (!screen()) return result_;
    if (!verify_rest()) return result_;
    if (!measure_full()) return result_;
    if (!sanitize()) return result_;
    keep();
    return result_;
  }

 private:
  void status(const std::string& what) { ctx_.out().status(fmt::format("{} #{} {}", ctx_.status_prefix(), id_, what)); }

  // Every exit path goes through here exactly once.
  void finish(const std::string& decision, const std::string& reason) {
    result_.decision = decision;
    result_.stop_interrupted = decision == "interrupted";
    rec_["decision"] = decision;
    rec_["reason"] = reason;
    rec_["finished"] = ctx_.world.clock->now_iso8601();
    rec_["seconds"] = ctx_.world.clock->now_seconds() - t0_;
    if (quick_us_) rec_["quick_geomean_us"] = *quick_us_;
    if (decision != "keep") {
      try {
        ctx_.git->discard_changes();
      } catch (const std::exception& e) {
        rec_["revert_error"] = e.what();
        result_.infrastructure_failure = true;
      }
      if (rec_.value("commit", nlohmann::json()).is_null()) rec_["commit"] = nullptr;
    }
    if (decision == "error") result_.infrastructure_failure = true;
    ctx_.log->append(rec_);

    Outcome o;
    o.decision = decision;
    o.reason = reason;
    o.quick_geomean_us = quick_us_;
    if (rec_.contains("speedup") && rec_["speedup"].is_number()) o.speedup = rec_["speedup"].get<double>();
    ctx_.history.push_back({id_, p_.idea, p_.tunables, o});
    if (decision != "interrupted" && decision != "error") {
      ctx_.agent->observe(p_, o);
      CachedResult c;
      c.context_key = ctx_.cache_context.key();
      c.tunables = p_.tunables;
      c.outcome = o;
      c.median_us = medians_;
      c.run_id = ctx_.run_id;
      c.candidate_id = id_;
      // Only configurations that are fully identified by their tunables are cached.
      if (p_.files.empty() && !p_.edited_worktree) ctx_.cache->add(c);
    }
    Tone tone = decision == "keep" ? Tone::Good : decision == "discard" ? Tone::Dim : Tone::Bad;
    std::string speed = rec_.contains("speedup") && rec_["speedup"].is_number()
                            ? fmt::format(" {:.3f}x", rec_["speedup"].get<double>())
                            : "";
    ctx_.out().event(fmt::format("#{} {}{} — {} — {}", id_, decision, speed, p_.idea, reason), tone);
  }

  bool failed_step(StepStatus s, const std::string& reason, const std::string& stage) {
    std::string d = decision_for(s, reason);
    if (s == StepStatus::Crash || s == StepStatus::Timeout || s == StepStatus::Cancelled ||
        (s == StepStatus::Error && d != "rejected_by_guard")) {
      std::string err;
      if (s != StepStatus::Cancelled && !ctx_.session->recover(kCandidateSlot, &err)) {
        result_.infrastructure_failure = true;
        finish(d, reason + " (and the harness could not be restarted: " + err + ")");
        return false;
      }
    }
    finish(d, stage + ": " + reason);
    return false;
  }

  bool apply() {
    auto& m = ctx_.manifest;
    try {
      write_file_atomic(ctx_.package_dir / m.tunables_file, tunables_to_json_text(p_.tunables));
      for (const auto& [rel, text] : p_.files) {
        fs::path path(rel);
        if (path.is_absolute() || rel.find("..") != std::string::npos) {
          finish("rejected_by_guard", "the agent wrote outside the package: " + rel);
          return false;
        }
        write_file_atomic(ctx_.package_dir / path, text);
      }
    } catch (const Fatal& e) {
      finish("error", std::string("could not apply the proposal: ") + e.what());
      return false;
    }
    std::string why;
    if (!satisfies_constraints(m, p_.tunables, &why)) {
      finish("rejected_by_guard", "tunables break a constraint: " + why);
      return false;
    }
    return true;
  }

  bool guard_scope() {
    auto changed = ctx_.git->changed_files();
    rec_["files"] = changed;
    rec_["diff"] = ctx_.git->diff();
    auto g = check_scope(ctx_.manifest, ctx_.package_prefix, changed);
    if (!g.pass) {
      finish("rejected_by_guard", g.reason());
      return false;
    }
    return true;
  }

  bool build(PreparedBuild* prebuilt) {
    status("building");
    PreparedBuild pb = prebuilt ? std::move(*prebuilt) : prepare_build(ctx_, p_.tunables, id_, ctx_.world.stop);
    const auto& b = pb.build;
    rec_["build"] = {{"ok", b.ok && !pb.guard_failure}, {"seconds", b.seconds}, {"scan_seconds", pb.scan_seconds},
                     {"errors", b.errors}, {"registers", b.registers ? nlohmann::json(*b.registers) : nlohmann::json()},
                     {"spills", b.spill_bytes ? nlohmann::json(*b.spill_bytes) : nlohmann::json()}};
    if (b.cancelled || ctx_.stop_requested()) {
      finish("interrupted", "stopped by a signal while building");
      return false;
    }
    if (pb.guard_failure) {
      finish("rejected_by_guard", *pb.guard_failure);
      return false;
    }
    if (!b.ok) {
      std::string first = b.errors.substr(0, b.errors.find('\n'));
      finish(b.timed_out ? "timeout" : "build_error", b.timed_out ? "compile timed out" : "does not build: " + first);
      return false;
    }
    artifact_ = b.artifact;
    auto r = ctx_.session->load(kCandidateSlot, artifact_);
    if (!r.ok()) {
      if (r.status != HarnessReply::Status::Error) return failed_step(StepStatus::Crash, r.message, "load");
      finish("build_error", "the harness rejects the artifact: " + r.message);
      return false;
    }
    return true;
  }

  bool verify(const std::vector<Workload>& workloads, const char* which) {
    status(fmt::format("verifying ({} workloads, {})", workloads.size(), which));
    auto v = verify_workloads(*ctx_.session, kCandidateSlot, workloads, ctx_.manifest, seed_, ctx_.cfg);
    auto& slot = rec_["verify"];
    if (slot.is_null()) slot = {{"ok", true}, {"seconds", 0.0}, {"workloads", nlohmann::json::array()}};
    slot["seconds"] = slot["seconds"].get<double>() + v.seconds;
    for (auto& w : v.workloads) slot["workloads"].push_back(w);
    if (v.status != StepStatus::Ok) {
      slot["ok"] = false;
      return failed_step(v.status, v.reason, std::string("verify ") + which);
    }
    return true;
  }

  bool measured(const MeasureOutcome& r, const char* stage) {
    ctx_.gpu_seconds += r.gpu_seconds;
    if (r.status == StepStatus::Ok) return true;
    return failed_step(r.status, r.reason, stage);
  }

  bool screen() {
    auto quick = ctx_.quick();
    status(fmt::format("screening on {} quick workloads", quick.size()));
    auto r = measure_pair(*ctx_.session, kIncumbentSlot, kCandidateSlot, quick, ctx_.manifest,
                          screen_sampling(ctx_.cfg), seed_ ^ 0x5151, kCandidateSlot, ctx_.cfg);
    if (!measured(r, "screen")) return false;
    rec_["screen"] = comparison_json(ctx_, quick, r);
    quick_us_ = geomean_us(r, true);
    ctx_.incumbent_quick_us = geomean_us(r, false);
    for (const auto& p : r.pairs) medians_[p.workload] = summarize(p.candidate_us).median;
    auto v = judge_screen(r.comparison, ctx_.rule);
    if (!v.pass) {
      rec_["speedup"] = r.comparison.speedup;
      finish("discard", "screen: " + v.reason);
      return false;
    }
    return true;
  }

  bool verify_rest() {
    std::vector<Workload> rest;
    for (const auto& w : ctx_.manifest.workloads)
      if (!w.quick) rest.push_back(w);
    int hidden = ctx_.cfg.hidden >= 0 ? ctx_.cfg.hidden : ctx_.manifest.hidden.count;
    if (!ctx_.manifest.hidden.params.empty()) {
      auto h = draw_hidden_workloads(ctx_.manifest, hidden, seed_ ^ 0x41d);
      rest.insert(rest.end(), h.begin(), h.end());
    }
    return verify(rest, "all and hidden");
  }

  bool measure_full() {
    auto timed = ctx_.timed();
    status(fmt::format("measuring on {} timed workloads", timed.size()));
    auto full = measure_pair(*ctx_.session, kIncumbentSlot, kCandidateSlot, timed, ctx_.manifest,
                             full_sampling(ctx_.cfg), seed_ ^ 0xf011, kCandidateSlot, ctx_.cfg);
    if (!measured(full, "measure")) return false;
    rec_["bench"] = comparison_json(ctx_, timed, full);
    rec_["speedup"] = full.comparison.speedup;
    rec_["speedup_ci"] = {full.comparison.ci_low, full.comparison.ci_high};
    for (const auto& p : full.pairs) medians_[p.workload] = summarize(p.candidate_us).median;
    if (auto fault = below_physical_floor(ctx_.manifest, timed, full, ctx_.roofline)) {
      finish("rejected_by_guard", *fault);
      return false;
    }
    auto v = judge_measurement(full.comparison, ctx_.aa_half_width, ctx_.rule);
    if (!v.pass) {
      finish("discard", v.reason);
      return false;
    }
    status("confirming in a second interleaved measurement");
    auto confirm = measure_pair(*ctx_.session, kIncumbentSlot, kCandidateSlot, timed, ctx_.manifest,
                                full_sampling(ctx_.cfg), seed_ ^ 0xc0f1, kCandidateSlot, ctx_.cfg);
    if (!measured(confirm, "confirm")) return false;
    rec_["confirm"] = comparison_json(ctx_, timed, confirm);
    auto k = judge_keep(full.comparison, confirm.comparison, ctx_.aa_half_width, ctx_.rule);
    threshold_ = k.threshold;
    if (!k.pass) {
      finish("discard", k.reason);
      return false;
    }
    full_ = full.comparison;
    confirm_ = confirm.comparison;
    return true;
  }

  bool sanitize() {
    std::string note;
    status("running compute-sanitizer on the smallest workload");
    auto finding = run_sanitizers(ctx_, artifact_, &note);
    rec_["sanitizer"] = {{"note", note}, {"finding", finding ? nlohmann::json(*finding) : nlohmann::json()}};
    if (finding) {
      finish("wrong", "sanitizer: " + *finding);
      return false;
    }
    return true;
  }

  void keep() {
    double vs_base = ctx_.vs_baseline * full_.speedup;
    if (measure_vs_baseline(ctx_, kCandidateSlot)) vs_base = ctx_.vs_baseline;
    rec_["vs_baseline"] = vs_base;
    if (ctx_.vs_baseline_comparison)
      rec_["vs_baseline_ci"] = {ctx_.vs_baseline_comparison->ci_low, ctx_.vs_baseline_comparison->ci_high};
    std::string sha;
    try {
      sha = ctx_.git->commit_all(commit_message(ctx_, id_, p_, full_, confirm_, threshold_, vs_base));
    } catch (const std::exception& e) {
      result_.infrastructure_failure = true;
      finish("error", std::string("git commit failed: ") + e.what());
      return;
    }
    rec_["commit"] = sha;
    fs::path kept = ctx_.run_dir / "incumbent" / (std::to_string(id_) + artifact_.extension().string());
    fs::create_directories(kept.parent_path());
    fs::copy_file(artifact_, kept, fs::copy_options::overwrite_existing);
    ctx_.incumbent = Incumbent{sha, p_.tunables, kept, editable_source_hash(ctx_.manifest, ctx_.package_dir), id_};
    ctx_.vs_baseline = vs_base;
    ctx_.keeps++;
    ctx_.last_keep_id = id_;
    ctx_.incumbent_quick_us = quick_us_;
    if (ctx_.incumbent.source_hash != ctx_.cache_context.source_hash) {
      // New source: results measured on the old one no longer describe it.
      ctx_.cache_context.source_hash = ctx_.incumbent.source_hash;
      if (ctx_.tuner) ctx_.tuner->set_context_key(ctx_.cache_context.key());
    }
    for (const char* slot : {kIncumbentSlot, kAaSlot}) {
      auto r = ctx_.session->load(slot, kept);
      if (!r.ok()) result_.infrastructure_failure = true;
    }
    finish("keep", fmt::format("{:.2f}% faster (needs {:.2f}%), confirmed {:.2f}%; {:.3f}x vs the start",
                               (full_.speedup - 1) * 100, (threshold_ - 1) * 100, (confirm_.speedup - 1) * 100,
                               vs_base));
  }

  RunContext& ctx_;
  const Proposal& p_;
  int id_;
  unsigned long long seed_;
  double t0_;
  nlohmann::json rec_;
  CandidateResult result_;
  fs::path artifact_;
  std::optional<double> quick_us_;
  std::map<std::string, double> medians_;
  Comparison full_, confirm_;
  double threshold_ = 1;
};

}  // namespace

CandidateResult evaluate_candidate(RunContext& ctx, const Proposal& p, int id, PreparedBuild* prebuilt) {
  CandidateRun run(ctx, p, id);
  return run.run(prebuilt);
}

}  // namespace ar
