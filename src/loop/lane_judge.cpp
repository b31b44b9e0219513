// A candidate judged on one GPU, on that GPU's worker thread: every
// measurement interleaves it with the incumbent in the same harness, so a
// speedup is a ratio of two kernels timed on one device, never across devices.
// The worker decides what the measurements say; the loop's thread keeps, logs
// and commits (one writer).
#include <fmt/format.h>

#include "gpu_lane.h"

namespace ar {

namespace {

class LaneJudge {
 public:
  LaneJudge(const RunContext& ctx, GpuLane& lane, const LaneJob& job)
      : ctx_(ctx), lane_(lane), s_(*lane.session), job_(job) {}

  LaneOutcome run() {
    if (!incumbent_loaded() || !aa_ready()) return out_;
    // Lanes judge tunables-only candidates: screened first (unless the run
    // says otherwise), verified on the quick set when the screen passes, and on
    // every workload and the hidden set only when both measurements would keep
    // it (candidate.cpp says why).
    const bool screen_first = ctx_.cfg.screen_first;
    const bool ok = screen_first ? load_candidate() && screen() && verify(job_.quick, "quick") &&
                                       measure_and_confirm() && verify(job_.rest, "all and hidden")
                                 : load_candidate() && verify(job_.quick, "quick") && screen() &&
                                       verify(job_.rest, "all and hidden") && measure_and_confirm();
    if (ok) {
      out_.passed = true;
      out_.decision = Decision::Keep;
    }
    return out_;
  }

 private:
  std::string on_gpu() const { return fmt::format("GPU {}", lane_.gpu); }

  bool lane_failed(const std::string& why, bool lost) {
    out_.kind = LaneOutcome::Kind::LaneFailed;
    out_.reason = why;
    out_.lane_lost = lost;
    return false;
  }

  bool judged(Decision d, const std::string& reason) {
    out_.decision = d;
    out_.reason = reason;
    return false;
  }

  // The harness is restarted without the culprit; a harness that cannot be
  // restarted is a lost GPU.
  bool restarted(const std::string& culprit, std::string* err) { return s_.recover(culprit, err); }

  bool incumbent_loaded() {
    if (lane_.loaded_incumbent == job_.incumbent_id) return true;
    for (const char* slot : {kIncumbentSlot, kAaSlot}) {
      auto r = s_.load(slot, job_.incumbent_artifact);
      if (r.ok()) continue;
      std::string err;
      bool lost = r.status != HarnessReply::Status::Error && !restarted("", &err);
      return lane_failed(fmt::format("{} could not load the incumbent #{}: {}{}", on_gpu(), job_.incumbent_id,
                                     r.message, lost ? " (and its harness could not be restarted: " + err + ")" : ""),
                         lost);
    }
    lane_.loaded_incumbent = job_.incumbent_id;
    return true;
  }

  bool aa_ready() {
    out_.aa_half_width = lane_.aa_half_width;
    if (!job_.refresh_aa) return true;
    out_.aa = measure_aa_on(ctx_, s_, job_.aa_after_id);   // its seconds are counted when it is logged
    if (out_.aa->status == StepStatus::Ok) {
      out_.aa_half_width = aa_half_width(out_.aa->comparison);
      return true;
    }
    if (out_.aa->status == StepStatus::Cancelled) return judged(Decision::Interrupted, "stopped by a signal");
    std::string err;
    bool lost = out_.aa->status != StepStatus::Wrong && !restarted("", &err);
    return lane_failed(fmt::format("the A/A re-measurement on {} failed: {}", on_gpu(), out_.aa->reason), lost);
  }

  // As candidate.cpp's failed_step, but what is not the candidate's doing (the
  // harness killed from outside, an error of the harness itself) fails the
  // lane instead, and the loop judges the candidate on another GPU.
  bool failed_step(StepStatus st, const std::string& reason, const std::string& stage) {
    std::string err;
    if (st == StepStatus::Crash && killed_from_outside(s_.last_death_signal())) {
      bool lost = !restarted("", &err);
      return lane_failed(fmt::format("the harness on {} was killed from outside ({}: {})", on_gpu(), stage, reason),
                         lost);
    }
    Decision d = decision_for_failure(st, reason);
    if (d == Decision::Interrupted) return judged(d, "stopped by a signal (" + stage + ")");
    bool restart = st == StepStatus::Crash || st == StepStatus::Timeout || st == StepStatus::Guard ||
                   (st == StepStatus::Error && d != Decision::RejectedByGuard);
    bool lost = restart && !restarted(kCandidateSlot, &err);
    if (d == Decision::Error || lost)
      return lane_failed(fmt::format("{} failed ({}: {}){}", on_gpu(), stage, reason,
                                     lost ? "; its harness could not be restarted: " + err : ""),
                         lost);
    return judged(d, stage + ": " + reason);
  }

  bool load_candidate() {
    auto r = s_.load(kCandidateSlot, job_.artifact);
    if (r.ok()) return true;
    if (r.status != HarnessReply::Status::Error) return failed_step(StepStatus::Crash, r.message, "load");
    return judged(Decision::BuildError, "the harness rejects the artifact: " + r.message);
  }

  bool verify(const std::vector<Workload>& workloads, const char* which) {
    auto v = verify_workloads(s_, kCandidateSlot, workloads, ctx_.manifest, job_.seed, ctx_.cfg);
    auto& slot = out_.rec["verify"];
    if (slot.is_null()) slot = {{"ok", true}, {"seconds", 0.0}, {"workloads", nlohmann::json::array()}};
    slot["seconds"] = slot["seconds"].get<double>() + v.seconds;
    for (auto& w : v.workloads) slot["workloads"].push_back(w);
    if (v.status == StepStatus::Ok) return true;
    slot["ok"] = false;
    return failed_step(v.status, v.reason, std::string("verify ") + which);
  }

  bool measured(const MeasureOutcome& r, const char* stage) {
    out_.gpu_seconds += r.gpu_seconds;
    return r.status == StepStatus::Ok || failed_step(r.status, r.reason, stage);
  }

  bool screen() {
    auto r = measure_pair(s_, kIncumbentSlot, kCandidateSlot, job_.quick, ctx_.manifest, screen_sampling(ctx_.cfg),
                          job_.seed ^ 0x5151, kCandidateSlot, ctx_.cfg);
    if (!measured(r, "screen")) return false;
    out_.rec["screen"] = comparison_json(ctx_, job_.quick, r);
    out_.quick_us = geomean_us(r, true);
    out_.incumbent_quick_us = geomean_us(r, false);
    for (const auto& p : r.pairs) out_.medians[p.workload] = summarize(p.candidate_us).median;
    auto v = judge_screen(r.comparison, ctx_.rule);
    if (v.pass) return true;
    out_.rec["speedup"] = r.comparison.speedup;
    return judged(Decision::Discard, "screen: " + v.reason);
  }

  bool measure_and_confirm() {
    const auto& timed = job_.timed;
    auto full = measure_pair(s_, kIncumbentSlot, kCandidateSlot, timed, ctx_.manifest, full_sampling(ctx_.cfg),
                             job_.seed ^ 0xf011, kCandidateSlot, ctx_.cfg);
    if (!measured(full, "measure")) return false;
    out_.rec["bench"] = comparison_json(ctx_, timed, full);
    out_.rec["speedup"] = full.comparison.speedup;
    out_.rec["speedup_ci"] = {full.comparison.ci_low, full.comparison.ci_high};
    for (const auto& p : full.pairs) out_.medians[p.workload] = summarize(p.candidate_us).median;
    if (auto fault = below_physical_floor(ctx_.manifest, timed, full, ctx_.roofline))
      return judged(Decision::RejectedByGuard, *fault);
    auto v = judge_measurement(full.comparison, out_.aa_half_width, ctx_.rule);
    if (!v.pass) return judged(Decision::Discard, v.reason);
    auto confirm = measure_pair(s_, kIncumbentSlot, kCandidateSlot, timed, ctx_.manifest, full_sampling(ctx_.cfg),
                                job_.seed ^ 0xc0f1, kCandidateSlot, ctx_.cfg);
    if (!measured(confirm, "confirm")) return false;
    out_.rec["confirm"] = comparison_json(ctx_, timed, confirm);
    auto k = judge_keep(full.comparison, confirm.comparison, out_.aa_half_width, ctx_.rule);
    out_.verdict = k;
    if (!k.pass) return judged(Decision::Discard, k.reason);
    out_.full = full.comparison;
    out_.confirm = confirm.comparison;
    return true;
  }

  const RunContext& ctx_;
  GpuLane& lane_;
  HarnessSession& s_;
  const LaneJob& job_;
  LaneOutcome out_;
};

}  // namespace

LaneOutcome judge_on_lane(const RunContext& ctx, GpuLane& lane, const LaneJob& job) {
  return LaneJudge(ctx, lane, job).run();
}

LaneStart start_lane(const RunContext& ctx, GpuLane& lane) {
  LaneStart st;
  const std::string gpu = fmt::format("GPU {}", lane.gpu);
  try {
    lane.harness = ctx.world.open_harness(ctx.harness_exe, lane.gpu);
    lane.own_session = std::make_unique<HarnessSession>(*lane.harness);
    lane.session = lane.own_session.get();
    lane.device = lane.session->start();
  } catch (const std::exception& e) {
    st.why = fmt::format("its harness did not start: {}", e.what());
    return st;
  }
  auto load = [&](const char* slot, const std::filesystem::path& artifact) {
    auto r = lane.session->load(slot, artifact);
    if (!r.ok()) st.why = fmt::format("its harness could not load {} into slot {}: {}", artifact.string(), slot,
                                      r.message);
    return r.ok();
  };
  if (!load(kBaseSlot, ctx.baseline_artifact) || !load(kIncumbentSlot, ctx.incumbent.artifact) ||
      !load(kAaSlot, ctx.incumbent.artifact))
    return st;
  lane.loaded_incumbent = ctx.incumbent.candidate_id;
  // The starting kernel passed on the first GPU; one that fails here says the
  // device is broken, not the kernel.
  st.verify = verify_workloads(*lane.session, kBaseSlot, ctx.all_declared(), ctx.manifest, ctx.seed, ctx.cfg);
  if (st.verify.status != StepStatus::Ok) {
    st.why = "the starting kernel fails verification there: " + st.verify.reason;
    return st;
  }
  st.aa = measure_aa_on(ctx, *lane.session, ctx.last_id);
  if (st.aa.status != StepStatus::Ok) {
    st.why = "its A/A measurement failed: " + st.aa.reason;
    return st;
  }
  st.ok = true;
  return st;
}

}  // namespace ar
