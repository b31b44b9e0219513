// The while-loop of SPEC §4: ask the agent, judge each proposal, stop on the
// goal, a budget, the plateau rule or a signal.
#include "autoresearch/loop/run_loop.h"

#include <deque>
#include <future>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "autoresearch/loop/gpu_list.h"
#include "autoresearch/util/errors.h"
#include "steps.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

struct Pending {
  Proposal proposal;
  int id = 0;
  std::future<PreparedBuild> build;   // invalid: build when its turn comes
};

class Loop {
 public:
  explicit Loop(RunContext& ctx) : ctx_(ctx), jobs_(build_jobs(ctx)) {
    ctx_.on_keep_decided = [this] { rebase_queue(); };
  }

  // An exception leaves through here: builds in flight are stopped and awaited.
  ~Loop() {
    ctx_.on_keep_decided = nullptr;
    discard_queue();
  }

  int run() {
    int first_id = ctx_.last_id + 1;
    if (ctx_.baseline_aa_pending) {
      // The first proposals compile on the spare cores while the GPU measures
      // the starting kernel's noise, so the first candidate finds its build.
      refill_ahead();
      auto timed = ctx_.phases.time(Phase::Setup);
      if (!calibrate_aa(ctx_, "baseline"))
        throw Fatal(kExitInfrastructure, "could not measure the starting kernel's noise (A/A); see the messages above");
      ctx_.baseline_aa_pending = false;
    }
    ctx_.take_phases();   // setup is the final line's, not the first candidate's
    ctx_.untried_at_keep = ctx_.agent->untried();
    std::string stop;
    bool interrupted = false;
    std::deque<fs::path> failures;
    while (true) {
      if (ctx_.stop_requested()) {
        stop = "interrupted by a signal";
        interrupted = true;
        break;
      }
      stop = budget_reason(ctx_, first_id);
      if (!stop.empty()) break;
      if (ctx_.cfg.aa_refresh > 0 && ctx_.last_id - ctx_.aa_measured_at >= ctx_.cfg.aa_refresh && !refresh_aa() &&
          infrastructure_failed("the A/A re-measurement failed"))
        return infrastructure_exit();
      if (queue_.empty() && !refill()) {
        auto left = ctx_.agent->untried();
        stop = ctx_.stop_requested()  ? "interrupted by a signal"
               : left && *left == 0 ? "every allowed configuration has been tried"
                                    : "the agent has nothing left to try";
        interrupted = ctx_.stop_requested();
        break;
      }
      Pending p = std::move(queue_.front());
      queue_.pop_front();
      if (!current(p)) continue;
      PreparedBuild built;
      PreparedBuild* prebuilt = nullptr;
      if (p.build.valid()) {
        wait_for(p.build);
        built = p.build.get();
        prebuilt = &built;
      }
      auto r = evaluate_candidate(ctx_, p.proposal, p.id, prebuilt);
      // Judged: a restart of the harness need not bring these back (their
      // build folders may be gone; a keep is in the incumbent's slots).
      ctx_.session->forget(kCandidateSlot);
      ctx_.session->forget(kSweepSlot);
      ctx_.last_id = p.id;
      ctx_.candidates_this_session++;
      clean_build_dir(ctx_, failures, p.id, r.decision);
      if (!r.log_failed.empty()) return log_failure_exit(r.log_failed);
      if (!r.fatal.empty()) {
        ctx_.out().event("the agent cannot go on: " + r.fatal, Tone::Bad);
        return infrastructure_exit(r.fatal);
      }
      if (r.stop_interrupted) {
        stop = "interrupted by a signal";
        interrupted = true;
        break;
      }
      if (r.infrastructure_failure) {
        if (infrastructure_failed("candidate #" + std::to_string(p.id))) return infrastructure_exit();
      } else {
        ctx_.infra_failures_in_a_row = 0;
      }
      if (r.decision == Decision::Keep) {
        ctx_.untried_at_keep = ctx_.agent->untried();
        rebase_queue();
      }
      refill_ahead();
    }
    discard_queue();
    return finish_run(ctx_, stop, interrupted);
  }

 private:
  bool refresh_aa() {
    auto timed = ctx_.phases.time(Phase::AaRefresh);
    return calibrate_aa(ctx_, "refresh");
  }

  AgentContext agent_context() { return agent_context_for(ctx_, next_id_); }

  bool refill() {
    AgentContext a = agent_context();
    std::optional<ContextPack> pack;
    if (ctx_.agent->wants_context_pack()) {
      pack = context_pack_for(ctx_, a.iteration);
      a.pack = &*pack;
      ctx_.out().status(fmt::format("{} #{} asking the agent ({})", ctx_.status_prefix(), a.iteration,
                                    ctx_.agent->name()));
      // A text agent edits the worktree for minutes: a run killed meanwhile
      // still has a record of the candidate, and the resume logs its diff.
      mark_in_flight(ctx_, a.iteration, {{"agent", ctx_.agent->name()}, {"phase", "proposing"},
                                         {"started", ctx_.world.clock->now_iso8601()}});
    }
    auto timed = ctx_.phases.time(Phase::Agent);
    auto proposals = ctx_.agent->propose(a, ctx_.agent->proposes_tunables_only() ? jobs_ : 1);
    if (proposals.empty()) {
      clear_in_flight(ctx_);
      return false;
    }
    for (auto& pr : proposals) enqueue(std::move(pr));
    return true;
  }

  // Keeps the compilers busy while the GPU measures.
  void refill_ahead() {
    if (jobs_ <= 1 || !ctx_.agent->proposes_tunables_only()) return;
    if (static_cast<int>(queue_.size()) >= jobs_) return;
    if (!budget_reason(ctx_, 1).empty()) return;
    auto timed = ctx_.phases.time(Phase::Agent);
    auto proposals = ctx_.agent->propose(agent_context(), jobs_ - static_cast<int>(queue_.size()));
    for (auto& pr : proposals) enqueue(std::move(pr));
  }

  // A proposal made against an older incumbent (built ahead while an earlier
  // candidate was kept) is moved onto the current one, or dropped: judging it
  // as it was would silently undo the keep, and its log line would describe a
  // change that was not the one measured.
  bool current(Pending& p) {
    if (p.proposal.base_id == ctx_.incumbent.candidate_id) return true;
    std::optional<Proposal> rebased;
    {
      auto timed = ctx_.phases.time(Phase::Agent);
      rebased = ctx_.agent->rebase(p.proposal, agent_context());
    }
    bool same_build = rebased && rebased->tunables == p.proposal.tunables && !p.proposal.changes_source();
    const bool was_built_ahead = p.build.valid();
    if (!same_build && was_built_ahead) {
      wait_for(p.build);
      p.build = {};
      std::error_code ec;
      fs::remove_all(ctx_.builds_dir() / std::to_string(p.id), ec);
    }
    if (!rebased) return false;
    p.proposal = std::move(*rebased);
    if (!same_build && was_built_ahead) start_build(p);
    return true;
  }

  // Right after a keep, every proposal waiting in the queue is moved onto the
  // new incumbent at once, so the ones whose settings changed are rebuilt side
  // by side on the spare cores, not one by one when their turn comes.
  void rebase_queue() {
    for (auto it = queue_.begin(); it != queue_.end();) {
      if (current(*it)) {
        ++it;
      } else {
        it = queue_.erase(it);
      }
    }
  }

  void enqueue(Proposal pr) {
    Pending p;
    p.id = ++next_id_;
    if (p.id <= ctx_.last_id) p.id = next_id_ = ctx_.last_id + 1;
    p.proposal = std::move(pr);
    if (jobs_ > 1 && ctx_.agent->proposes_tunables_only()) start_build(p);
    queue_.push_back(std::move(p));
  }

  void start_build(Pending& p) {
    auto tunables = p.proposal.tunables;
    int id = p.id;
    p.build = std::async(std::launch::async,
                         [this, tunables, id] { return prepare_build(ctx_, tunables, id, &cancel_builds_); });
  }

  void wait_for(std::future<PreparedBuild>& f) {
    auto timed = ctx_.phases.time(Phase::BuildWait);
    ctx_.out().status(ctx_.status_prefix() + " waiting for the compiler");
    while (f.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready)
      if (ctx_.stop_requested()) cancel_builds_ = true;
  }

  void discard_queue() {
    cancel_builds_ = true;
    for (auto& p : queue_) {
      if (p.build.valid()) p.build.wait();
      std::error_code ec;
      fs::remove_all(ctx_.builds_dir() / std::to_string(p.id), ec);
    }
    queue_.clear();
  }

  bool infrastructure_failed(const std::string& what) {
    ctx_.infra_failures_in_a_row++;
    ctx_.out().event(fmt::format("infrastructure failure {} of {} in a row ({})", ctx_.infra_failures_in_a_row,
                                 ctx_.cfg.infra_failures, what),
                     Tone::Warn);
    return ctx_.infra_failures_in_a_row >= ctx_.cfg.infra_failures;
  }

  int infrastructure_exit(const std::string& why = "") {
    discard_queue();
    finish_run(ctx_,
               why.empty() ? fmt::format("{} infrastructure failures in a row (GPU, harness, agent, disk or git)",
                                         ctx_.infra_failures_in_a_row)
                           : why,
               true);
    return kExitInfrastructure;
  }

  // The log cannot take a line: nothing more can be recorded, so nothing more
  // is done (not even the final line). The branch holds only logged keeps.
  int log_failure_exit(const std::string& why) {
    discard_queue();
    return ar::log_failure_exit(ctx_, why);
  }

  RunContext& ctx_;
  int jobs_;
  int next_id_ = 0;
  std::deque<Pending> queue_;
  // Ahead-of-time builds stop when the run stops, whatever the reason.
  std::atomic<bool> cancel_builds_{false};
};

}  // namespace

int run_loop(World& world, RunRequest request) {
  RunContext ctx(world);
  ctx.cfg = request.config;
  ctx.paths = request.paths;
  if (!request.gpus.empty() && request.overrides.contains("gpu"))
    throw usage_error("--gpu and --gpus are exclusive: --gpus 0,1 measures on GPUs 0 and 1, --gpus 3 on GPU 3 alone");
  if (!request.gpus.empty())
    ctx.gpus = parse_gpu_list(request.gpus, [&world](std::string* why) { return host_gpu_indices(*world.runner, why); });
  ctx.started_at = world.clock->now_seconds();
  std::optional<PhaseTimes::Scope> setup;
  setup.emplace(ctx.phases, Phase::Setup);
  if (request.resume.empty()) {
    try {
      setup_new_run(ctx);
    } catch (...) {
      // Nothing of a run that never started stays behind (its branch is only
      // created after the starting kernel passed verification).
      if (!ctx.log && !ctx.run_dir.empty() && !fs::exists(ctx.run_dir / kLogFileName)) {
        ctx.session.reset();
        ctx.harness.reset();
        ctx.run_lock.reset();
        std::error_code ec;
        fs::remove_all(ctx.run_dir, ec);
      }
      throw;
    }
  } else {
    setup_resume(ctx, request.resume, request.overrides);
  }
  setup.reset();
  int code = ctx.gpus.size() > 1 ? run_multi_gpu_loop(ctx) : Loop(ctx).run();
  ctx.session->stop();
  return code;
}

}  // namespace ar
