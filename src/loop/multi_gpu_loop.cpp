// The loop on several GPUs of one host (--gpus): one protected harness per
// GPU, each with its own lock and its own A/A noise, each judging a different
// candidate at the same time. This thread is the only writer: it asks the
// agent, builds, hands a candidate to an idle GPU, and logs, keeps and commits
// in the order the GPUs finish. A GPU that fails is dropped; the run goes on
// with the others.
//
// A speedup is a ratio measured on one GPU: a candidate is measured and
// confirmed interleaved with the incumbent on the GPU that judges it. When a
// keep on one GPU changes the incumbent while another GPU still measures a
// candidate against the old one, that candidate's win is stale: it is
// measured again against the new incumbent on the same GPU (twice at most,
// and not once the run is stopping: then it is discarded as stale). A loss
// against an older incumbent is logged as the discard it is.
#include <chrono>
#include <deque>
#include <future>

#include <fmt/format.h>

#include "autoresearch/loop/gpu_list.h"
#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"
#include "gpu_lane.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

constexpr int kMaxRemeasures = 2;     // a stale winner is measured again at most this often
constexpr int kMaxLaneFailures = 2;   // GPUs failing under one candidate before it is logged as an error


struct Running {
  Flight flight;
  int lane = 0;
  LaneJob job;
  std::future<LaneOutcome> outcome;
};

std::string gpu_names(const std::vector<GpuLane>& lanes) {
  std::string s;
  for (const auto& l : lanes)
    if (!l.dropped) s += (s.empty() ? "" : ", ") + std::to_string(l.gpu);
  return s.empty() ? "none" : s;
}

class MultiGpuLoop {
 public:
  explicit MultiGpuLoop(RunContext& ctx) : ctx_(ctx), jobs_(build_jobs(ctx)) {}
  ~MultiGpuLoop() { stop_everything(); }

  int run() {
    first_id_ = ctx_.last_id + 1;
    ctx_.take_phases();
    ctx_.untried_at_keep = ctx_.agent->untried();
    start_lanes();
    std::string stop;
    bool interrupted = false;
    while (log_failed_.empty()) {
      if (live() == 0) return all_dropped_exit();
      if (ctx_.stop_requested()) {
        stop = "interrupted by a signal";
        interrupted = true;
        break;
      }
      // --max-iters counts every id handed out: those still queued or measured are judged first.
      stop = budget_reason(ctx_, first_id_, queue_.empty() && running_.empty());
      if (!stop.empty()) break;
      feed_idle_lanes();
      if (!log_failed_.empty()) break;
      if (running_.empty()) {
        if (live() == 0) continue;
        stop = budget_reason(ctx_, first_id_);   // the feed stopped for it (a run of build errors)
        if (!stop.empty()) break;
        auto left = ctx_.agent->untried();
        interrupted = ctx_.stop_requested();
        stop = interrupted               ? "interrupted by a signal"
               : left && *left == 0      ? "every allowed configuration has been tried"
               : ids_exhausted()         ? fmt::format("--max-iters {} reached", ctx_.cfg.max_iters)
                                         : "the agent has nothing left to try";
        break;
      }
      conclude(take_finished());
    }
    stopping_ = true;
    while (!running_.empty() && log_failed_.empty()) conclude(take_finished());
    if (!log_failed_.empty()) return log_failure_exit();
    if (live() == 0) return all_dropped_exit();
    close_queue();
    if (!log_failed_.empty()) return log_failure_exit();
    make_primary_current();
    return finish_run(ctx_, stop, interrupted);
  }

 private:
  int live() const {
    int n = 0;
    for (const auto& l : lanes_) n += !l.dropped;
    return n;
  }

  // ---- the GPUs -----------------------------------------------------------

  void start_lanes() {
    lanes_.resize(ctx_.gpus.size());
    for (size_t i = 0; i < lanes_.size(); ++i) lanes_[i].gpu = ctx_.gpus[i];
    GpuLane& first = lanes_[0];   // setup started it, verified the start on it and measured its A/A
    first.session = ctx_.session.get();
    first.device = ctx_.session->device();
    first.aa_half_width = ctx_.aa_half_width;
    first.aa_measured_at = ctx_.aa_measured_at;
    first.loaded_incumbent = ctx_.incumbent.candidate_id;
    ctx_.out().status(fmt::format("{} starting the harnesses of GPUs {}", ctx_.status_prefix(), gpu_names(lanes_)));
    std::vector<std::future<LaneStart>> starts;
    for (size_t i = 1; i < lanes_.size(); ++i)
      starts.push_back(std::async(std::launch::async, [this, i] { return start_lane(ctx_, lanes_[i]); }));
    log_lane(first, nullptr);
    for (size_t i = 1; i < lanes_.size(); ++i) {
      LaneStart st = starts[i - 1].get();
      GpuLane& lane = lanes_[i];
      if (!st.ok) {
        drop(lane, "at the start: " + st.why);
        continue;
      }
      log_lane(lane, &st);
      if (record_aa(ctx_, "gpu start", st.aa, ctx_.last_id, lane.gpu, &lane.aa_half_width))
        lane.aa_measured_at = ctx_.last_id;
    }
  }

  // One line per GPU: its device, and what else runs on it (timings shared
  // with another process are not the kernel's alone).
  void log_lane(GpuLane& lane, const LaneStart* st) {
    std::string why;
    auto others = other_gpu_processes(*ctx_.world.runner, lane.gpu, &why);
    nlohmann::json line = {{"type", "gpu_lane"}, {"time", ctx_.world.clock->now_iso8601()}, {"gpu", lane.gpu},
                           {"device", lane.device}};
    line["other_processes"] = others ? nlohmann::json(*others) : nlohmann::json();
    if (!others) line["other_processes_unknown"] = why;
    if (st) line["verify_baseline"] = {{"ok", true}, {"seconds", st->verify.seconds}};
    append(line);
    ctx_.out().event(fmt::format("GPU {}: {}", lane.gpu, lane.device.value("name", "?")));
    if (others && !others->empty()) {
      std::string list;
      for (const auto& p : *others) list += (list.empty() ? "" : "; ") + p;
      ctx_.out().event(fmt::format("GPU {} is shared with other processes ({}): they spoil its timings", lane.gpu, list),
                       Tone::Warn);
    }
  }

  void drop(GpuLane& lane, const std::string& why) {
    if (lane.dropped) return;
    lane.dropped = true;
    if (lane.session) lane.session->stop();
    append({{"type", "gpu_dropped"}, {"time", ctx_.world.clock->now_iso8601()}, {"gpu", lane.gpu},
            {"reason", why}, {"after_id", ctx_.last_id}, {"gpus_left", gpus_left()}});
    ctx_.out().event(fmt::format("GPU {} dropped: {}; the run goes on with GPUs {}", lane.gpu, why,
                                 gpu_names(lanes_)),
                     Tone::Bad);
  }

  nlohmann::json gpus_left() const {
    nlohmann::json g = nlohmann::json::array();
    for (const auto& l : lanes_)
      if (!l.dropped) g.push_back(l.gpu);
    return g;
  }

  // finish_run measures the best against the start on ctx.session: the first
  // GPU still working, holding the current incumbent.
  void make_primary_current() {
    size_t k = 0;
    while (lanes_[k].dropped) ++k;
    if (k != 0) {
      std::swap(ctx_.harness, lanes_[k].harness);
      std::swap(ctx_.session, lanes_[k].own_session);
    }
    if (lanes_[k].loaded_incumbent != ctx_.incumbent.candidate_id)
      for (const char* slot : {kIncumbentSlot, kAaSlot}) ctx_.session->load(slot, ctx_.incumbent.artifact);
  }

  // ---- proposals and builds ---------------------------------------------

  int highest_id() const { return std::max(next_id_, ctx_.last_id); }
  bool ids_exhausted() const { return ctx_.cfg.max_iters > 0 && highest_id() >= ctx_.cfg.max_iters; }

  // Enough proposals for every idle GPU and the compilers (never past --max-iters).
  void refill(int wanted) {
    if (ids_exhausted() || agent_done_) return;
    if (ctx_.cfg.max_iters > 0) wanted = std::min(wanted, ctx_.cfg.max_iters - highest_id());
    if (wanted <= 0) return;
    std::vector<Proposal> proposals;
    {
      auto timed = ctx_.phases.time(Phase::Agent);
      proposals = ctx_.agent->propose(agent_context_for(ctx_, next_id_), wanted);
    }
    if (proposals.empty()) agent_done_ = true;
    for (auto& p : proposals) enqueue(std::move(p));
  }

  void enqueue(Proposal pr) {
    Flight f;
    f.id = ++next_id_;
    if (f.id <= ctx_.last_id) f.id = next_id_ = ctx_.last_id + 1;
    f.proposal = std::move(pr);
    if (jobs_ > 1) {
      auto tunables = f.proposal.tunables;
      int id = f.id;
      f.build = std::async(std::launch::async,
                           [this, tunables, id] { return prepare_build(ctx_, tunables, id, &cancel_builds_); });
    }
    queue_.push_back(std::move(f));
  }

  // The next candidate for lane `i`: its own stale win first, else the oldest
  // proposal not pinned to another GPU still working.
  std::optional<Flight> next_for(size_t i) {
    for (int refills = 0;; ++refills) {
      for (auto it = queue_.begin(); it != queue_.end(); ++it) {
        bool pinned_elsewhere = it->pinned >= 0 && it->pinned != static_cast<int>(i) && !lanes_[it->pinned].dropped;
        if (pinned_elsewhere) continue;
        Flight f = std::move(*it);
        queue_.erase(it);
        return f;
      }
      if (refills > 0) return std::nullopt;
      refill(live() + jobs_ - static_cast<int>(queue_.size()));
    }
  }

  // A proposal made against an older incumbent is moved onto the current one
  // (as the single-GPU loop does): judging it as it was would undo a keep.
  bool current(Flight& f) {
    if (f.proposal.base_id == ctx_.incumbent.candidate_id) return true;
    std::optional<Proposal> rebased;
    {
      auto timed = ctx_.phases.time(Phase::Agent);
      rebased = ctx_.agent->rebase(f.proposal, agent_context_for(ctx_, next_id_));
    }
    if (!rebased || rebased->tunables != f.proposal.tunables) {
      forget_build(f);
      if (!rebased) return false;
    }
    f.proposal = std::move(*rebased);
    return true;
  }

  void forget_build(Flight& f) {
    if (f.build.valid()) f.build.wait();
    f.build = {};
    f.built.reset();
    std::error_code ec;
    fs::remove_all(ctx_.builds_dir() / std::to_string(f.id), ec);
  }

  // Built and passed the static guard; else its line is written here.
  bool built(Flight& f) {
    if (f.built) return true;
    std::string why;
    if (!satisfies_constraints(ctx_.manifest, f.proposal.tunables, &why)) {
      record(f, nullptr, nullptr, Decision::RejectedByGuard, "tunables break a constraint: " + why);
      return false;
    }
    if (f.build.valid()) {
      auto timed = ctx_.phases.time(Phase::BuildWait);
      ctx_.out().status(ctx_.status_prefix() + " waiting for the compiler");
      while (f.build.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready)
        if (ctx_.stop_requested()) cancel_builds_ = true;
      f.built = f.build.get();
    } else {
      auto timed = ctx_.phases.time(Phase::Build);
      ctx_.out().status(fmt::format("{} #{} building", ctx_.status_prefix(), f.id));
      f.built = prepare_build(ctx_, f.proposal.tunables, f.id, ctx_.world.stop);
    }
    const PreparedBuild& pb = *f.built;
    if (pb.build.cancelled || ctx_.stop_requested()) {
      record(f, nullptr, nullptr, Decision::Interrupted, "stopped by a signal while building");
      return false;
    }
    if (pb.guard_failure) {
      record(f, nullptr, nullptr, Decision::RejectedByGuard, *pb.guard_failure);
      return false;
    }
    if (!pb.build.ok) {
      record(f, nullptr, nullptr, pb.build.timed_out ? Decision::Timeout : Decision::BuildError,
             pb.build.timed_out ? "compile timed out" : "does not build: " + first_error_line(pb.build.errors));
      return false;
    }
    if (std::string same = same_kernel_as_incumbent(ctx_, f.proposal, pb); !same.empty()) {
      record(f, nullptr, nullptr, Decision::Discard, same);
      return false;
    }
    return true;
  }

  // ---- handing out and taking back ---------------------------------------

  void feed_idle_lanes() {
    for (size_t i = 0; i < lanes_.size() && log_failed_.empty(); ++i) {
      GpuLane& lane = lanes_[i];
      // Candidates that end before a GPU sees them (a build error) count for the budget too.
      while (!lane.dropped && !lane.busy && log_failed_.empty() && !ctx_.stop_requested() &&
             budget_reason(ctx_, first_id_, false).empty()) {
        auto f = next_for(i);
        if (!f) return;
        if (f->started.empty()) {
          f->started = ctx_.world.clock->now_iso8601();
          f->t0 = ctx_.world.clock->now_seconds();
        }
        if (!current(*f)) continue;   // nothing left of it to judge: the agent dropped it
        if (!built(*f)) continue;
        dispatch(i, std::move(*f));
      }
    }
  }

  void dispatch(size_t i, Flight f) {
    GpuLane& lane = lanes_[i];
    LaneJob job;
    job.id = f.id;
    job.seed = ctx_.seed + 1000003ull * static_cast<unsigned long long>(f.id);
    job.artifact = f.built->build.artifact;
    job.incumbent_id = ctx_.incumbent.candidate_id;
    job.incumbent_artifact = ctx_.incumbent.artifact;
    job.refresh_aa = ctx_.cfg.aa_refresh > 0 && ctx_.last_id - lane.aa_measured_at >= ctx_.cfg.aa_refresh;
    job.aa_after_id = ctx_.last_id;
    if (job.refresh_aa) lane.aa_measured_at = ctx_.last_id;
    job.quick = ctx_.quick();
    job.timed = ctx_.timed();
    for (const auto& w : ctx_.manifest.workloads)
      if (!w.quick) job.rest.push_back(w);
    int hidden = ctx_.cfg.hidden >= 0 ? ctx_.cfg.hidden : ctx_.manifest.hidden.count;
    if (!ctx_.manifest.hidden.params.empty()) {
      auto h = draw_hidden_workloads(ctx_.manifest, hidden, job.seed ^ 0x41d);
      job.rest.insert(job.rest.end(), h.begin(), h.end());
    }
    lane.busy = true;
    Running r;
    r.lane = static_cast<int>(i);
    r.flight = std::move(f);
    r.job = job;
    r.outcome = std::async(std::launch::async, [this, i, job] { return judge_on_lane(ctx_, lanes_[i], job); });
    running_.push_back(std::move(r));
    show_status();
  }

  void show_status() {
    std::string on;
    for (const auto& r : running_) on += fmt::format(" #{}@GPU{}", r.flight.id, lanes_[r.lane].gpu);
    ctx_.out().status(ctx_.status_prefix() + " measuring" + on);
  }

  Running take_finished() {
    while (true) {
      for (auto it = running_.begin(); it != running_.end(); ++it)
        if (it->outcome.wait_for(std::chrono::milliseconds(0)) == std::future_status::ready) {
          Running r = std::move(*it);
          running_.erase(it);
          return r;
        }
      running_.front().outcome.wait_for(std::chrono::milliseconds(20));
    }
  }

  void conclude(Running r) {
    GpuLane& lane = lanes_[r.lane];
    LaneOutcome o = r.outcome.get();
    lane.busy = false;
    ctx_.gpu_seconds += o.gpu_seconds;
    if (o.aa && o.aa->status == StepStatus::Ok)
      record_aa(ctx_, "refresh", *o.aa, r.job.aa_after_id, lane.gpu, &lane.aa_half_width);
    Flight& f = r.flight;
    if (o.kind == LaneOutcome::Kind::LaneFailed) return lane_failed(lane, std::move(f), o);
    lane.failures_in_a_row = 0;
    if (!o.passed) {
      record(f, &lane, &o, o.decision, o.reason);
      return;
    }
    if (r.job.incumbent_id != ctx_.incumbent.candidate_id) return stale_win(r.lane, std::move(f), o, r.job);
    keep(lane, f, o);
  }

  // Not the candidate's doing: it goes to another GPU (or this one, when it
  // is still up), and the GPU is dropped once it keeps failing.
  void lane_failed(GpuLane& lane, Flight f, const LaneOutcome& o) {
    lane.failures_in_a_row++;
    ctx_.out().event(fmt::format("GPU {}: {} (infrastructure failure {} of {} in a row on it); #{} is judged again",
                                 lane.gpu, o.reason, lane.failures_in_a_row, ctx_.cfg.infra_failures, f.id),
                     Tone::Warn);
    if (o.lane_lost || lane.failures_in_a_row >= ctx_.cfg.infra_failures)
      drop(lane, o.lane_lost ? o.reason : fmt::format("{} infrastructure failures in a row; the last: {}",
                                                      lane.failures_in_a_row, o.reason));
    f.lane_failures++;
    if (ctx_.stop_requested()) {
      record(f, &lane, nullptr, Decision::Interrupted, "stopped by a signal");
      return;
    }
    if (f.lane_failures >= kMaxLaneFailures || stopping_) {
      record(f, &lane, nullptr, Decision::Error,
             fmt::format("the GPUs failed while judging it ({}); an infrastructure failure, not the candidate's",
                         o.reason));
      return;
    }
    f.pinned = -1;
    queue_.push_front(std::move(f));
  }

  void stale_win(int lane_index, Flight f, const LaneOutcome& o, const LaneJob& job) {
    GpuLane& lane = lanes_[lane_index];
    const std::string what = fmt::format("it beat #{} ({:.3f}x) on GPU {}, but #{} was kept meanwhile", job.incumbent_id,
                                         o.full.speedup, lane.gpu, ctx_.incumbent.candidate_id);
    f.earlier.push_back({{"gpu", lane.gpu}, {"against", job.incumbent_id}, {"speedup", o.full.speedup},
                         {"confirm_speedup", o.confirm.speedup}});
    std::optional<Proposal> rebased;
    if (!stopping_ && static_cast<int>(f.earlier.size()) <= kMaxRemeasures) {
      auto timed = ctx_.phases.time(Phase::Agent);
      rebased = ctx_.agent->rebase(f.proposal, agent_context_for(ctx_, next_id_));
    }
    if (!rebased || rebased->tunables != f.proposal.tunables) {
      const int times = static_cast<int>(f.earlier.size());
      std::string why = stopping_                ? "the run is stopping"
                        : times > kMaxRemeasures ? fmt::format("its win went stale {} times", times)
                        : !rebased               ? "the agent dropped it"
                                                 : "the agent moved it onto other tunables";
      record(f, &lane, &o, Decision::Discard, fmt::format("stale: {}; not measured again ({})", what, why));
      return;
    }
    ctx_.out().event(fmt::format("#{}: {}: measuring it again against #{} on GPU {}", f.id, what,
                                 ctx_.incumbent.candidate_id, lane.gpu));
    f.proposal = std::move(*rebased);
    f.pinned = lane_index;
    queue_.push_front(std::move(f));
  }

  // ---- the one writer -----------------------------------------------------

  bool append(const nlohmann::json& line) {
    auto timed = ctx_.phases.time(Phase::Log);
    try {
      ctx_.log->append(line);
      return true;
    } catch (const std::exception& e) {
      if (log_failed_.empty()) log_failed_ = e.what();
      return false;
    }
  }

  // The candidate's line (lane_record.cpp); a log that cannot take it stops the run.
  bool record(Flight& f, const GpuLane* lane, const LaneOutcome* o, Decision decision, const std::string& reason,
              const nlohmann::json& extra = nlohmann::json::object()) {
    return !log_failed_.empty() ? false
                                : record_candidate_line(ctx_, f, lane, o, decision, reason, extra, failures_, &log_failed_);
  }

  void keep(GpuLane& lane, Flight& f, const LaneOutcome& o) { keep_on_lane(ctx_, lane, f, o, failures_, &log_failed_); }

  // ---- stopping -----------------------------------------------------------

  // The run stops: a candidate judged once already still gets its line (a
  // stale win is discarded as stale; one whose GPU failed is abandoned); the
  // ones never started are forgotten, as in the single-GPU loop.
  void close_queue() {
    while (!queue_.empty() && log_failed_.empty()) {
      Flight f = std::move(queue_.front());
      queue_.pop_front();
      if (!f.earlier.empty()) {
        const auto& last = f.earlier.back();
        record(f, f.pinned >= 0 ? &lanes_[f.pinned] : nullptr, nullptr, Decision::Discard,
               fmt::format("stale: it beat #{} on GPU {}, but #{} was kept meanwhile; not measured again (the run "
                           "is stopping)",
                           last["against"].get<int>(), last["gpu"].get<int>(), ctx_.incumbent.candidate_id));
      } else if (f.lane_failures > 0) {
        record(f, nullptr, nullptr, Decision::Abandoned,
               "its GPU failed while judging it, and the run stopped before another GPU could");
      } else {
        forget_build(f);
      }
    }
  }

  void discard_queue() {
    cancel_builds_ = true;
    for (auto& f : queue_) forget_build(f);
    queue_.clear();
  }

  void stop_everything() {
    cancel_builds_ = true;
    for (auto& r : running_)
      if (r.outcome.valid()) r.outcome.wait();
    running_.clear();
    discard_queue();
    for (size_t i = 1; i < lanes_.size(); ++i)
      if (lanes_[i].own_session && !lanes_[i].dropped) lanes_[i].own_session->stop();
  }

  int all_dropped_exit() {
    stop_everything();
    finish_run(ctx_, fmt::format("every GPU was dropped (GPUs {}): see the gpu_dropped lines", gpu_list()), true);
    return kExitInfrastructure;
  }

  std::string gpu_list() const {
    std::string s;
    for (int g : ctx_.gpus) s += (s.empty() ? "" : ", ") + std::to_string(g);
    return s;
  }

  int log_failure_exit() {
    stop_everything();
    return ar::log_failure_exit(ctx_, log_failed_);
  }

  RunContext& ctx_;
  int jobs_;
  std::vector<GpuLane> lanes_;            // sized once, before any worker starts
  std::deque<Flight> queue_;
  std::vector<Running> running_;
  std::deque<fs::path> failures_;
  int next_id_ = 0;
  int first_id_ = 1;                      // this session's first candidate
  bool agent_done_ = false;
  bool stopping_ = false;
  std::string log_failed_;
  std::atomic<bool> cancel_builds_{false};
};

}  // namespace

int run_multi_gpu_loop(RunContext& ctx) { return MultiGpuLoop(ctx).run(); }

}  // namespace ar
