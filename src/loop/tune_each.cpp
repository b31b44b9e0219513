// The hybrid of SPEC §5: a text agent proposes a structural change, the tuner
// then sweeps that candidate's tunables before the keep/revert decision. A new
// structure rarely wins with the old structure's tile sizes; judging only the
// setting the agent happened to write would throw good ideas away.
//
// Every setting is built from the worktree (which holds the candidate's source),
// verified on the quick workloads and screened against the incumbent. The
// fastest verified setting, the candidate as proposed included, goes on to the
// full judgement; the sweep's screen of it stands as the candidate's screen.
// A setting that slows a quick workload beyond the keep rule's regression
// margin cannot be kept, however good its geomean: it wins the sweep only if
// no setting without such a regression was found. A setting that preprocesses to a
// kernel already screened in the sweep (its changed tunables unused by this source)
// is that kernel: it is logged as such and not measured again.
#include <future>
#include <map>

#include <fmt/format.h>

#include "autoresearch/agents/tuner.h"
#include "steps.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

struct Setting {
  Tunables tunables;
  fs::path artifact;
  std::optional<MeasureOutcome> screen;
  double quick_us = 0;
  std::string regression;   // the quick workload it slows beyond the margin, if any
};

// The sweep's order: a setting the keep rule could accept beats one it cannot;
// then the faster geomean.
bool better(const Setting& a, const Setting& b) {
  if (a.regression.empty() != b.regression.empty()) return a.regression.empty();
  return a.quick_us < b.quick_us;
}

std::string change_text(const Manifest& m, const Tunables& from, const Tunables& to) {
  std::string out;
  for (const auto& t : m.tunables) {
    auto a = from.find(t.name), b = to.find(t.name);
    if (b == to.end() || (a != from.end() && a->second == b->second)) continue;
    out += fmt::format("{}{} {}→{}", out.empty() ? "" : ", ", t.name, a == from.end() ? 0 : a->second, b->second);
  }
  return out;
}

class Sweep {
 public:
  Sweep(RunContext& ctx, int id, const Tunables& proposed, const std::string& proposed_kernel, unsigned long long seed)
      : ctx_(ctx), id_(id), proposed_(proposed), proposed_kernel_(proposed_kernel), seed_(seed),
        tuner_(ctx.manifest, Strategy::Evolution, seed ^ 0x7e5ull, nullptr) {
    tuner_.set_context_key(fmt::format("tune-each-{}", id));
  }

  SweepOutcome run(const fs::path& proposed_artifact) {
    // The candidate as proposed: already built, loaded and verified on the quick set.
    auto first = screen(kCandidateSlot);
    if (!first) return std::move(out_);
    Setting start{proposed_, proposed_artifact, *first, geomean_us(*first, true), regression_in(*first)};
    record(start.tunables, "screened", start.quick_us, first->comparison.speedup, start.regression);
    best_ = start;
    observe(start.tunables, Decision::Discard, start.quick_us);
    if (!proposed_kernel_.empty()) screened_[proposed_kernel_] = {proposed_, start.quick_us};

    int left = ctx_.cfg.tune_each;
    int jobs = std::max(1, ctx_.manifest.backend == Backend::Cpu ? 1 : std::min(ctx_.cfg.build_jobs > 0 ? ctx_.cfg.build_jobs : 4, left));
    int round = 0;
    while (left > 0 && !ctx_.stop_requested()) {
      AgentContext a;
      a.manifest = &ctx_.manifest;
      a.incumbent_tunables = best_->tunables;
      a.incumbent_quick_geomean_us = best_->quick_us;
      auto proposals = tuner_.propose(a, std::min(jobs, left));
      if (proposals.empty()) break;
      left -= static_cast<int>(proposals.size());
      // Settings of one round compile together (they differ only in -D defines).
      std::vector<std::future<PreparedBuild>> builds;
      for (size_t i = 0; i < proposals.size(); ++i) {
        fs::path dir = ctx_.builds_dir() / std::to_string(id_) / fmt::format("tune-{}-{}", round, i);
        builds.push_back(std::async(std::launch::async, [this, t = proposals[i].tunables, dir] {
          return prepare_build(ctx_, t, id_, ctx_.world.stop, dir);
        }));
      }
      for (size_t i = 0; i < proposals.size(); ++i) {
        PreparedBuild pb = builds[i].get();
        judge_setting(proposals[i].tunables, pb);
      }
      ++round;
    }
    if (ctx_.stop_requested()) out_.cancelled = true;
    if (best_) {
      out_.best = best_->tunables;
      out_.artifact = best_->artifact;
      out_.screen = best_->screen;
      out_.change = change_text(ctx_.manifest, proposed_, best_->tunables);
      if (best_->tunables != proposed_ && !out_.cancelled) {
        auto r = ctx_.session->load(kCandidateSlot, best_->artifact);
        if (!r.ok()) {
          out_.screen.reset();
          out_.failure = "could not load the best setting: " + r.message;
          out_.failure_status = r.status == HarnessReply::Status::Error ? StepStatus::Error : StepStatus::Crash;
        }
      }
    }
    return std::move(out_);
  }

 private:
  void record(const Tunables& t, const std::string& what, double quick_us = 0, double speedup = 0,
              const std::string& reason = "") {
    nlohmann::json j = {{"tunables", t}, {"result", what}};
    if (quick_us > 0) j["quick_geomean_us"] = quick_us;
    if (speedup > 0) j["speedup"] = speedup;
    if (!reason.empty()) j["reason"] = reason;
    out_.log.push_back(j);
  }

  void observe(const Tunables& t, Decision d, double quick_us) {
    Proposal p;
    p.tunables = t;
    Outcome o;
    o.decision = d;
    if (quick_us > 0) o.quick_geomean_us = quick_us;
    tuner_.observe(p, o);
  }

  // A harness failure on a setting costs that setting only: the harness is
  // restarted without it.
  void failed(const Tunables& t, const std::string& what, const std::string& reason, Decision d) {
    record(t, what, 0, 0, reason);
    observe(t, d, 0);
    std::string err;
    if (d == Decision::Crash || d == Decision::Timeout) ctx_.session->recover(kSweepSlot, &err);
  }

  std::optional<MeasureOutcome> screen(const char* slot) {
    auto quick = ctx_.quick();
    auto r = measure_pair(*ctx_.session, kIncumbentSlot, slot, quick, ctx_.manifest, screen_sampling(ctx_.cfg),
                          seed_ ^ 0x5151 ^ static_cast<unsigned long long>(out_.log.size()), slot, ctx_.cfg);
    ctx_.gpu_seconds += r.gpu_seconds;
    if (r.status != StepStatus::Ok) {
      if (std::string(slot) == kCandidateSlot) {
        out_.failure = r.reason;
        out_.failure_status = r.status;
      }
      return std::nullopt;
    }
    return r;
  }

  void judge_setting(const Tunables& t, const PreparedBuild& pb) {
    if (pb.build.cancelled || ctx_.stop_requested()) return;
    if (pb.guard_failure) return failed(t, "rejected_by_guard", *pb.guard_failure, Decision::RejectedByGuard);
    if (!pb.build.ok) return failed(t, "build_error", first_error_line(pb.build.errors), Decision::BuildError);
    if (auto same = screened_.find(pb.kernel_hash); !pb.kernel_hash.empty() && same != screened_.end()) {
      record(t, "same_kernel", same->second.quick_us, 0,
             "preprocesses to the kernel of " + nlohmann::json(same->second.tunables).dump() + " (not measured again)");
      observe(t, Decision::Discard, same->second.quick_us);
      return;
    }
    auto loaded = ctx_.session->load(kSweepSlot, pb.build.artifact);
    if (!loaded.ok()) return failed(t, "build_error", loaded.message, Decision::BuildError);
    auto v = verify_workloads(*ctx_.session, kSweepSlot, ctx_.quick(), ctx_.manifest, seed_ ^ 0x3e1, ctx_.cfg);
    if (v.status != StepStatus::Ok)
      return failed(t, step_status_name(v.status), v.reason, v.status == StepStatus::Wrong ? Decision::Wrong : Decision::Crash);
    auto s = screen(kSweepSlot);
    if (!s) return failed(t, "screen failed", "", Decision::Crash);
    Setting candidate{t, pb.build.artifact, *s, geomean_us(*s, true), regression_in(*s)};
    record(t, "screened", candidate.quick_us, s->comparison.speedup, candidate.regression);
    observe(t, Decision::Discard, candidate.quick_us);
    if (!pb.kernel_hash.empty()) screened_[pb.kernel_hash] = {t, candidate.quick_us};
    if (best_ && !better(candidate, *best_)) return;
    // Keep the artifact: the build folder of a setting is reused by the next round.
    fs::path kept = ctx_.builds_dir() / std::to_string(id_) / ("best" + pb.build.artifact.extension().string());
    std::error_code ec;
    fs::copy_file(pb.build.artifact, kept, fs::copy_options::overwrite_existing, ec);
    candidate.artifact = ec ? pb.build.artifact : kept;
    best_ = std::move(candidate);
  }

  std::string regression_in(const MeasureOutcome& s) const {
    const WorkloadComparison* w = significant_regression(s.comparison, ctx_.rule.regression_margin);
    return w ? fmt::format("regresses {} by {:.1f}%", w->workload, (1 / w->ratio - 1) * 100) : "";
  }

  RunContext& ctx_;
  int id_;
  Tunables proposed_;
  std::string proposed_kernel_;
  unsigned long long seed_;
  struct Screened {
    Tunables tunables;
    double quick_us = 0;
  };
  std::map<std::string, Screened> screened_;   // kernel_hash -> the first setting screened with it
  Tuner tuner_;
  std::optional<Setting> best_;
  SweepOutcome out_;
};

}  // namespace

SweepOutcome sweep_tunables(RunContext& ctx, int id, const Tunables& proposed, const fs::path& artifact,
                            const std::string& proposed_kernel, unsigned long long seed) {
  Sweep sweep(ctx, id, proposed, proposed_kernel, seed);
  return sweep.run(artifact);
}

}  // namespace ar
