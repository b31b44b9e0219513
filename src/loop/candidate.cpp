// One candidate, from proposal to log line: take the proposal, apply it, guard,
// build, then judge it, then keep (commit) or revert. A source change is
// verified on the quick set, its tunables tuned (--tune-each), screened,
// verified on the rest and the hidden set, measured, confirmed and sanitized;
// a tunables-only change is screened, verified on the quick set, measured and
// confirmed, and only a candidate the measurements would keep is verified on
// the rest and the hidden set (beside its sanitizer run). Each step can end the
// candidate with a decision and a reason, always through finish().
#include <cmath>
#include <future>

#include <fmt/format.h>

#include "autoresearch/agents/context_assembly.h"
#include "autoresearch/agents/tuner.h"
#include "autoresearch/guard/guard.h"
#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"
#include "steps.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

std::string short_sha(const std::string& sha) { return sha.substr(0, 10); }

class CandidateRun {
 public:
  CandidateRun(RunContext& ctx, const Proposal& p, int id) : ctx_(ctx), p_(p), id_(id) {
    t0_ = ctx.world.clock->now_seconds();
    rec_ = {{"type", "candidate"}, {"id", id}, {"started", ctx.world.clock->now_iso8601()},
            {"agent", p.agent}, {"model", p.model}, {"idea", p.idea}, {"tunables", p.tunables},
            {"base", p.base_id}, {"tokens", {{"in", p.tokens_in()}, {"out", p.tokens_out()}}},
            {"cost_usd", p.cost_usd()}};
    if (!p.calls.empty()) rec_["calls"] = calls_json(p.calls);
    if (!p.detail.empty()) rec_["agent_detail"] = p.detail;
    seed_ = ctx.seed + 1000003ull * static_cast<unsigned long long>(id);
    // A candidate is a measurement step: under SLURM, whatever job ran before it
    // (a resume's re-measurement) ends here, and is logged with it as "before".
    ctx.session->end_step();
    jobs_before_ = ctx.session->take_record();
    mark_in_flight(ctx, id, rec_);
  }

  CandidateResult run(PreparedBuild* prebuilt) {
    if (!take()) return result_;
    if (!apply()) return result_;
    if (!guard_scope()) return result_;
    if (!build(prebuilt)) return result_;
    if (!judge()) return result_;
    keep();
    return result_;
  }

 private:
  static nlohmann::json calls_json(const std::vector<AgentCall>& calls) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : calls) {
      nlohmann::json j = {{"tokens_in", c.tokens_in}, {"tokens_out", c.tokens_out}, {"cost_usd", c.cost_usd},
                          {"seconds", c.seconds}, {"attempts", c.attempts}, {"finish", c.finish}};
      if (c.cost_estimated) j["cost_estimated"] = true;
      if (!c.model.empty()) j["model"] = c.model;
      out.push_back(j);
    }
    return out;
  }

  void status(const std::string& what) { ctx_.out().status(fmt::format("{} #{} {}", ctx_.status_prefix(), id_, what)); }

  // Every exit path goes through here exactly once.
  void finish(Decision decision, const std::string& reason) {
    result_.decision = decision;
    result_.stop_interrupted = decision == Decision::Interrupted;
    rec_["decision"] = decision_name(decision);
    rec_["reason"] = reason;
    rec_["idea"] = p_.idea;
    rec_["tunables"] = p_.tunables;
    rec_["finished"] = ctx_.world.clock->now_iso8601();
    rec_["seconds"] = ctx_.world.clock->now_seconds() - t0_;
    if (quick_us_) rec_["quick_geomean_us"] = *quick_us_;
    if (decision != Decision::Keep) {
      // Whatever the agent did to the worktree (edits, new files, commits, another
      // branch), the incumbent is what stays.
      auto timed = ctx_.phases.time(Phase::Git);
      try {
        ctx_.git->restore(ctx_.branch, ctx_.incumbent.commit);
      } catch (const std::exception& e) {
        rec_["revert_error"] = e.what();
        result_.infrastructure_failure = true;
      }
      if (rec_.value("commit", nlohmann::json()).is_null()) rec_["commit"] = nullptr;
    }
    if (decision == Decision::Error) result_.infrastructure_failure = true;
    ctx_.session->end_step();   // under SLURM: the candidate's job ends; which jobs measured it goes in its line
    if (auto jobs = ctx_.session->take_record(); !jobs.is_null() || !jobs_before_.is_null()) {
      if (jobs.is_null()) jobs = {{"jobs", nlohmann::json::array()}, {"requeues", 0}};
      if (!jobs_before_.is_null()) jobs["before"] = jobs_before_["jobs"];
      rec_["slurm"] = jobs;
    }
    ctx_.tokens_total += p_.tokens_in() + p_.tokens_out();
    ctx_.cost_total += p_.cost_usd();
    rec_["phases"] = ctx_.take_phases();
    if (!append_record()) return;
    clear_in_flight(ctx_);

    Outcome o;
    o.decision = decision;
    o.reason = reason;
    o.quick_geomean_us = quick_us_;
    if (rec_.contains("speedup") && rec_["speedup"].is_number()) o.speedup = rec_["speedup"].get<double>();
    std::string change = p_.changes_source() ? summarize_diff(rec_.value("diff", "")) : "";
    ctx_.history.push_back({id_, p_.agent, p_.idea, p_.tunables, o, change});
    if (describes_candidate(decision)) {
      ctx_.agent->observe(p_, o);
      // Only configurations fully identified by their tunables are cached.
      if (!p_.changes_source()) {
        CachedResult c;
        c.context_key = ctx_.cache_context.key();
        c.tunables = p_.tunables;
        c.outcome = o;
        c.median_us = medians_;
        c.run_id = ctx_.run_id;
        c.candidate_id = id_;
        ctx_.cache->add(c);
      }
    }
    if (decision == Decision::BuildError) ctx_.recent_build_errors = rec_["build"].value("errors", "");
    if (rec_.contains("build") && decision != Decision::BuildError)
      ctx_.recent_build_warnings = build_warnings_line(id_, rec_["build"]);
    Tone tone = decision == Decision::Keep ? Tone::Good : decision == Decision::Discard ? Tone::Dim : Tone::Bad;
    std::string speed = rec_.contains("speedup") && rec_["speedup"].is_number()
                            ? fmt::format(" {:.3f}x", rec_["speedup"].get<double>())
                            : "";
    ctx_.out().event(fmt::format("#{} {}{} — {} — {}", id_, decision_name(decision), speed, p_.idea, reason), tone);
  }

  // The log line is the record: a keep whose line cannot be written is undone,
  // so the branch never holds a commit the log does not know.
  bool append_record() {
    auto timed = ctx_.phases.time(Phase::Log);
    try {
      ctx_.log->append(rec_);
      return true;
    } catch (const std::exception& e) {
      result_.log_failed = e.what();
      if (result_.decision == Decision::Keep && !ctx_.incumbent.commit.empty()) {
        try {
          ctx_.git->restore(ctx_.branch, ctx_.incumbent.commit);
          result_.log_failed += fmt::format("; the commit of #{} was undone", id_);
        } catch (const std::exception& g) {
          result_.log_failed += fmt::format("; undoing the commit of #{} failed too ({}): a resume recovers it", id_,
                                            g.what());
        }
      }
      return false;
    }
  }

  bool failed_step(StepStatus s, const std::string& reason, const std::string& stage) {
    Decision d = decision_for_failure(s, reason);
    // A guard failure in the harness means the candidate ran code in that
    // process (a thread may still run there, its memory may be written): a
    // fresh harness for the next candidate.
    bool restart = s == StepStatus::Crash || s == StepStatus::Timeout || s == StepStatus::Guard ||
                   (s == StepStatus::Error && d != Decision::RejectedByGuard);
    if (s == StepStatus::Crash && killed_from_outside(ctx_.session->last_death_signal())) {
      // Not the candidate's doing: judge it again in a fresh harness (judge() decides).
      killed_outside_ = stage + ": " + reason;
      return false;
    }
    if (restart) {
      std::string err;
      if (!ctx_.session->recover(kCandidateSlot, &err)) {
        result_.infrastructure_failure = true;
        finish(d, reason + " (and the harness could not be restarted: " + err + ")");
        return false;
      }
    }
    finish(d, stage + ": " + reason);
    return false;
  }

  // The agent's own failure (a malformed answer, a command that failed) is
  // recorded like any other candidate, so the count and the reasons are kept.
  bool take() {
    if (!p_.failure) return true;
    const AgentFailure& f = *p_.failure;
    if (p_.idea.empty()) p_.idea = "(no proposal)";
    if (f.kind == AgentFailure::Kind::Output) {
      finish(ctx_.stop_requested() ? Decision::Interrupted : Decision::AgentError, "agent: " + f.message);
    } else {
      if (f.kind == AgentFailure::Kind::Fatal) result_.fatal = f.message;
      finish(Decision::Error, "agent: " + f.message);
    }
    return false;
  }

  bool apply() {
    auto timed = ctx_.phases.time(Phase::Apply);
    auto& m = ctx_.manifest;
    try {
      if (!p_.edited_worktree) {
        for (const auto& [rel, text] : p_.files) {
          fs::path path(rel);
          if (path.is_absolute() || rel.find("..") != std::string::npos) {
            finish(Decision::RejectedByGuard, "the agent wrote outside the package: " + rel);
            return false;
          }
          write_file_atomic(ctx_.package_dir / path, text);
        }
        if (!p_.files.count(m.tunables_file))
          write_file_atomic(ctx_.package_dir / m.tunables_file, tunables_to_json_text(p_.tunables));
      }
      // A text agent may change the tunables file: what it left is what is built.
      if (p_.changes_source()) p_.tunables = read_tunables_file(m, ctx_.package_dir / m.tunables_file);
    } catch (const Fatal& e) {
      if (p_.changes_source()) {
        finish(Decision::AgentError, std::string("the agent left an unusable tunables file: ") + e.what());
      } else {
        finish(Decision::Error, std::string("could not apply the proposal: ") + e.what());
      }
      return false;
    }
    std::string why;
    if (!satisfies_constraints(m, p_.tunables, &why)) {
      finish(Decision::RejectedByGuard, "tunables break a constraint: " + why);
      return false;
    }
    return true;
  }

  bool guard_scope() {
    // An agent may only edit files: a commit, a reset or another branch is
    // undone (finish restores the incumbent) and the candidate refused.
    auto guarding = ctx_.phases.time(Phase::Guard);
    std::optional<PhaseTimes::Scope> git_calls;
    git_calls.emplace(ctx_.phases, Phase::Git);
    std::string branch = ctx_.git->current_branch();
    std::string head = ctx_.git->head();
    if (branch != ctx_.branch || head != ctx_.incumbent.commit) {
      rec_["diff"] = "";
      finish(Decision::RejectedByGuard,
             fmt::format("scope: the agent moved HEAD (now {} at {}; it must only edit files): the worktree was "
                         "restored to {}",
                         branch.empty() ? "a detached HEAD" : "branch " + branch, short_sha(head),
                         short_sha(ctx_.incumbent.commit)));
      return false;
    }
    auto changed = ctx_.git->changed_files(ctx_.package_prefix);
    rec_["files"] = changed;
    rec_["diff"] = ctx_.git->diff();
    git_calls.reset();
    mark_in_flight(ctx_, id_, rec_);   // a run killed from here on leaves this diff for the resume
    if (p_.idea.empty()) p_.idea = "edit: " + summarize_diff(rec_["diff"].get<std::string>());
    if (changed.empty() && p_.changes_source()) {
      finish(Decision::AgentError, "the agent changed nothing");
      return false;
    }
    auto g = check_scope(ctx_.manifest, ctx_.package_prefix, changed);
    if (!g.pass) {
      finish(Decision::RejectedByGuard, g.reason());
      return false;
    }
    return true;
  }

  bool build(PreparedBuild* prebuilt) {
    status("building");
    PreparedBuild pb;
    if (prebuilt) {
      pb = std::move(*prebuilt);   // the loop's wait for it was build_wait
    } else {
      auto timed = ctx_.phases.time(Phase::Build);
      pb = prepare_build(ctx_, p_.tunables, id_, ctx_.world.stop);
    }
    const auto& b = pb.build;
    rec_["build"] = build_json(pb);
    rec_["build"]["ahead"] = prebuilt != nullptr;   // made on spare cores while earlier candidates were judged
    if (b.cancelled || ctx_.stop_requested()) {
      finish(Decision::Interrupted, "stopped by a signal while building");
      return false;
    }
    if (pb.guard_failure) {
      finish(Decision::RejectedByGuard, *pb.guard_failure);
      return false;
    }
    if (!b.ok) {
      std::string first = first_error_line(b.errors);
      finish(b.timed_out ? Decision::Timeout : Decision::BuildError,
             b.timed_out ? "compile timed out" : "does not build: " + first);
      return false;
    }
    artifact_ = b.artifact;
    kernel_hash_ = pb.kernel_hash;
    if (std::string same = same_kernel_as_incumbent(ctx_, p_, pb); !same.empty()) {
      quick_us_ = ctx_.incumbent_quick_us;   // its speed is the incumbent's: the tuner learns that
      finish(Decision::Discard, same);
      return false;
    }
    return true;
  }

  bool load_candidate() {
    auto timed = ctx_.phases.time(Phase::Verify);
    auto r = ctx_.session->load(kCandidateSlot, artifact_);
    if (!r.ok()) {
      if (r.status != HarnessReply::Status::Error) return failed_step(StepStatus::Crash, r.message, "load");
      finish(Decision::BuildError, "the harness rejects the artifact: " + r.message);
      return false;
    }
    return true;
  }

  // The judged steps, once more in a fresh harness when the harness was killed
  // from outside (the OOM killer, an administrator), whether while it waited or
  // while it worked: such a death says nothing about the candidate, so it is
  // neither blamed nor cached.
  bool judge() {
    for (int attempt = 0;; ++attempt) {
      killed_outside_.clear();
      // A source change is verified before its screen: a text agent learns far
      // more from "wrong on the peaked inputs" than from "slower". A tunables-only
      // change of the verified source is screened first: most are losers, and
      // their screen (whose timed replays are checked against the reference)
      // costs less than verifying them. What passes is verified on the quick set
      // before it is measured in full; the rest and the hidden set (on the H200,
      // twenty times a screen) wait until both measurements say keep: a discard's
      // correctness changes nothing, and nothing is kept unverified.
      const bool screen_first = ctx_.cfg.screen_first && !p_.changes_source();
      bool ok = screen_first
                    ? load_candidate() && screen() && verify(ctx_.quick(), "quick") && measure_full() &&
                          confirm() && verify_rest_beside_sanitizer()
                    : load_candidate() && verify(ctx_.quick(), "quick") && tune_each() && screen() &&
                          verify_rest() && measure_full() && confirm() && sanitize();
      if (ok) return true;
      if (killed_outside_.empty()) return false;
      std::string err;
      if (attempt >= 1 || !ctx_.session->recover("", &err)) {
        finish(Decision::Error,
               fmt::format("the harness was killed from outside{} ({}): an infrastructure failure, not the "
                           "candidate's",
                           attempt >= 1 ? " twice" : " and could not be restarted: " + err, killed_outside_));
        return false;
      }
      ctx_.out().event(fmt::format("#{}: the harness was killed from outside ({}); judging it again in a fresh one",
                                   id_, killed_outside_),
                       Tone::Warn);
      rec_["retried"] = killed_outside_;
      for (const char* k : {"verify", "tune_each", "screen", "bench", "confirm", "speedup", "speedup_ci"}) rec_.erase(k);
      sweep_.reset();
    }
  }

  bool verify(const std::vector<Workload>& workloads, const char* which) {
    status(fmt::format("verifying ({} workloads, {})", workloads.size(), which));
    auto timed = ctx_.phases.time(Phase::Verify);
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

  // Hybrid (--tune-each N): a text candidate's tunables are tuned before it is
  // judged, so a good structural idea is not discarded for a bad tile size.
  bool tune_each() {
    if (ctx_.cfg.tune_each <= 0 || !p_.changes_source() || ctx_.manifest.tunables.empty()) return true;
    status(fmt::format("tuning its tunables ({} settings at most)", ctx_.cfg.tune_each));
    auto timed = ctx_.phases.time(Phase::TuneEach);
    sweep_ = sweep_tunables(ctx_, id_, p_.tunables, artifact_, kernel_hash_, seed_);
    rec_["tune_each"] = sweep_->log;
    if (sweep_->cancelled) {
      finish(Decision::Interrupted, "stopped by a signal while tuning its tunables");
      return false;
    }
    if (!sweep_->screen) {
      if (!sweep_->failure.empty()) return failed_step(sweep_->failure_status, sweep_->failure, "tune-each");
      return true;   // nothing measured: the normal screen judges the candidate as proposed
    }
    if (sweep_->best != p_.tunables) {
      std::string from = canonical(p_.tunables);
      p_.tunables = sweep_->best;
      artifact_ = sweep_->artifact;
      rec_["build"]["tuned_from"] = from;
      write_file_atomic(ctx_.package_dir / ctx_.manifest.tunables_file, tunables_to_json_text(p_.tunables));
      p_.idea += " (tuned: " + sweep_->change + ")";
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
    MeasureOutcome r;
    if (sweep_ && sweep_->screen) {
      r = *sweep_->screen;   // the sweep screened every setting already
    } else {
      status(fmt::format("screening on {} quick workloads", quick.size()));
      auto timed = ctx_.phases.time(Phase::Screen);
      r = measure_pair(*ctx_.session, kIncumbentSlot, kCandidateSlot, quick, ctx_.manifest,
                       screen_sampling(ctx_.cfg), seed_ ^ 0x5151, kCandidateSlot, ctx_.cfg);
      if (!measured(r, "screen")) return false;
    }
    rec_["screen"] = comparison_json(ctx_, quick, r);
    quick_us_ = geomean_us(r, true);
    ctx_.incumbent_quick_us = geomean_us(r, false);
    for (const auto& p : r.pairs) medians_[p.workload] = summarize(p.candidate_us).median;
    auto v = judge_screen(r.comparison, ctx_.rule);
    if (!v.pass) {
      rec_["speedup"] = r.comparison.speedup;
      finish(Decision::Discard, "screen: " + v.reason);
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

  // Both check correctness, neither is timed, and each runs its own process on
  // the GPU: the sanitizer's fresh harness runs while the run's harness
  // verifies, and its phase is only the wait beyond the verification. A failed
  // verification is the decision: the sanitizer is then stopped, not awaited.
  bool verify_rest_beside_sanitizer() {
    if (ctx_.manifest.backend != Backend::Cuda) return verify_rest() && sanitize();
    std::string note;
    std::atomic<bool> abandon{false};
    auto finding = std::async(std::launch::async,
                              [this, &note, &abandon] { return run_sanitizers(ctx_, artifact_, &note, -1, &abandon); });
    const bool verified = verify_rest();
    std::optional<std::string> found;
    {
      auto timed = ctx_.phases.time(Phase::Sanitizer);
      if (verified) status("running compute-sanitizer on the smallest workload of each launch path");
      while (finding.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready)
        if (!verified || ctx_.stop_requested()) abandon = true;
      found = finding.get();
    }
    return verified && sanitized(found, note);
  }

  bool measure_full() {
    auto timed = ctx_.timed();
    status(fmt::format("measuring on {} timed workloads", timed.size()));
    MeasureOutcome full;
    {
      auto t = ctx_.phases.time(Phase::Measure);
      full = measure_pair(*ctx_.session, kIncumbentSlot, kCandidateSlot, timed, ctx_.manifest,
                          full_sampling(ctx_.cfg), seed_ ^ 0xf011, kCandidateSlot, ctx_.cfg);
    }
    if (!measured(full, "measure")) return false;
    rec_["bench"] = comparison_json(ctx_, timed, full);
    rec_["speedup"] = full.comparison.speedup;
    rec_["speedup_ci"] = {full.comparison.ci_low, full.comparison.ci_high};
    for (const auto& p : full.pairs) medians_[p.workload] = summarize(p.candidate_us).median;
    if (auto fault = below_physical_floor(ctx_.manifest, timed, full, ctx_.roofline)) {
      finish(Decision::RejectedByGuard, *fault);
      return false;
    }
    auto v = judge_measurement(full.comparison, ctx_.aa_half_width, ctx_.rule);
    if (!v.pass) {
      finish(Decision::Discard, v.reason);
      return false;
    }
    full_ = full.comparison;
    return true;
  }

  bool confirm() {
    auto timed = ctx_.timed();
    status("confirming in a second interleaved measurement");
    MeasureOutcome confirm;
    {
      auto t = ctx_.phases.time(Phase::Confirm);
      confirm = measure_pair(*ctx_.session, kIncumbentSlot, kCandidateSlot, timed, ctx_.manifest,
                             full_sampling(ctx_.cfg), seed_ ^ 0xc0f1, kCandidateSlot, ctx_.cfg);
    }
    if (!measured(confirm, "confirm")) return false;
    rec_["confirm"] = comparison_json(ctx_, timed, confirm);
    auto k = judge_keep(full_, confirm.comparison, ctx_.aa_half_width, ctx_.rule);
    threshold_ = k.threshold;
    verdict_ = k;
    if (!k.pass) {
      finish(Decision::Discard, k.reason);
      return false;
    }
    confirm_ = confirm.comparison;
    return true;
  }

  bool sanitize() {
    std::string note;
    status("running compute-sanitizer on the smallest workload of each launch path");
    std::optional<std::string> finding;
    {
      auto timed = ctx_.phases.time(Phase::Sanitizer);
      finding = run_sanitizers(ctx_, artifact_, &note);
    }
    return sanitized(finding, note);
  }

  bool sanitized(const std::optional<std::string>& finding, const std::string& note) {
    rec_["sanitizer"] = {{"note", note}, {"finding", finding ? nlohmann::json(*finding) : nlohmann::json()}};
    if (finding) {
      finish(Decision::Wrong, "sanitizer: " + *finding);
      return false;
    }
    return true;
  }

  void keep() {
    // The incumbent is the candidate's from here (its commit stays the
    // previous one until this one is made, for every undo below), and the
    // loop moves its queue onto it now: the builds that changes compile while
    // the GPU measures against the start, not after the keep.
    const Incumbent previous = ctx_.incumbent;
    const std::string source_hash = editable_source_hash(ctx_.manifest, ctx_.package_dir);
    ctx_.incumbent = Incumbent{previous.commit, p_.tunables, previous.artifact, source_hash, id_};
    if (ctx_.on_keep_decided) ctx_.on_keep_decided();
    double vs_base = ctx_.vs_baseline * full_.speedup;
    {
      auto timed = ctx_.phases.time(Phase::VsBaseline);
      if (measure_vs_baseline(ctx_, kCandidateSlot)) vs_base = ctx_.vs_baseline;
    }
    rec_["vs_baseline"] = vs_base;
    if (ctx_.vs_baseline_comparison)
      rec_["vs_baseline_ci"] = {ctx_.vs_baseline_comparison->ci_low, ctx_.vs_baseline_comparison->ci_high};
    std::string sha;
    try {
      auto timed = ctx_.phases.time(Phase::Git);
      sha = ctx_.git->commit_all(commit_message(ctx_, id_, p_, full_, confirm_, threshold_, vs_base));
    } catch (const std::exception& e) {
      ctx_.incumbent = previous;   // the queue follows it back when its proposals come up
      result_.infrastructure_failure = true;
      finish(Decision::Error, std::string("git commit failed: ") + e.what());
      return;
    }
    rec_["commit"] = sha;
    fs::path kept = ctx_.run_dir / "incumbent" / (std::to_string(id_) + artifact_.extension().string());
    fs::create_directories(kept.parent_path());
    fs::copy_file(artifact_, kept, fs::copy_options::overwrite_existing);
    finish(Decision::Keep, describe_verdict(verdict_, vs_base));
    if (!result_.log_failed.empty()) {   // undone: the incumbent stays what it was
      ctx_.incumbent = previous;
      return;
    }
    ctx_.incumbent = Incumbent{sha, p_.tunables, kept, source_hash, id_};
    ctx_.vs_baseline = vs_base;
    ctx_.keeps++;
    ctx_.last_keep_id = id_;
    ctx_.incumbent_quick_us = quick_us_;
    ctx_.incumbent_build = rec_["build"];
    ctx_.incumbent_rows = rec_["bench"].value("workloads", nlohmann::json());
    if (ctx_.incumbent.source_hash != ctx_.cache_context.source_hash) {
      // New source: results measured on the old one no longer describe it.
      ctx_.cache_context.source_hash = ctx_.incumbent.source_hash;
      if (ctx_.tuner) ctx_.tuner->set_context_key(ctx_.cache_context.key());
      ctx_.profile_stale = true;
    }
    for (const char* slot : {kIncumbentSlot, kAaSlot}) {
      auto r = ctx_.session->load(slot, kept);
      if (!r.ok()) result_.infrastructure_failure = true;
    }
  }

  RunContext& ctx_;
  Proposal p_;
  int id_;
  unsigned long long seed_;
  double t0_;
  nlohmann::json rec_;
  CandidateResult result_;
  fs::path artifact_;
  std::string kernel_hash_;   // its preprocessed source (PreparedBuild::kernel_hash)
  std::optional<double> quick_us_;
  std::map<std::string, double> medians_;
  Comparison full_, confirm_;
  double threshold_ = 1;
  Verdict verdict_;                   // the keep rule's verdict on both measurements
  std::string killed_outside_;        // set by failed_step: the harness died by an outside signal
  std::optional<SweepOutcome> sweep_;
  nlohmann::json jobs_before_;        // SLURM jobs that ran between the previous line and this candidate
};

}  // namespace

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

nlohmann::json build_json(const PreparedBuild& pb) {
  const auto& b = pb.build;
  nlohmann::json j = {{"ok", b.ok && !pb.guard_failure}, {"seconds", b.seconds}, {"scan_seconds", pb.scan_seconds},
                      {"errors", b.errors}};
  j.update(build_report_json(b));
  return j;
}

std::string build_warnings_line(int id, const nlohmann::json& build) {
  if (!build.contains("ptxas_warnings") || !build["ptxas_warnings"].is_array() || build["ptxas_warnings"].empty())
    return "";
  std::string out = fmt::format("#{}:", id);
  for (const auto& w : build["ptxas_warnings"]) out += "\n- " + w.get<std::string>();
  return out;
}

std::string first_error_line(const std::string& errors) {
  // The compiler's first real message, not the wrapper's "compiler exit status 1".
  size_t start = 0;
  std::string fallback;
  while (start < errors.size()) {
    size_t end = errors.find('\n', start);
    if (end == std::string::npos) end = errors.size();
    std::string line = errors.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    if (fallback.empty()) fallback = line;
    if (line.find("error") != std::string::npos && line.rfind("compiler ", 0) != 0 &&
        line.rfind("preprocessor ", 0) != 0)
      return line;
  }
  return fallback;
}

CandidateResult evaluate_candidate(RunContext& ctx, const Proposal& p, int id, PreparedBuild* prebuilt) {
  CandidateRun run(ctx, p, id);
  return run.run(prebuilt);
}

}  // namespace ar
