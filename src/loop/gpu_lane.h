#pragma once
// One GPU of a multi-GPU run: its lock, its protected harness, its own A/A
// noise, and the incumbent its slots hold. A lane's harness is driven by one
// thread at a time: its worker while it judges, else the loop's thread.
// Private to src/loop.
#include <deque>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "autoresearch/decide/keep_rule.h"
#include "run_context.h"
#include "steps.h"

namespace ar {

struct GpuLane {
  int gpu = 0;
  std::unique_ptr<FileLock> lock;               // the first GPU's is ctx.device_lock
  std::unique_ptr<Harness> harness;             // the first GPU's is ctx.harness
  std::unique_ptr<HarnessSession> own_session;
  HarnessSession* session = nullptr;
  nlohmann::json device;
  double aa_half_width = 0;
  int aa_measured_at = 0;
  int loaded_incumbent = 0;                     // candidate id of the incumbent in its inc and aa slots
  int failures_in_a_row = 0;                    // infrastructure failures, not the candidates'
  bool busy = false;
  bool dropped = false;
};

// A candidate on its way through a multi-GPU run: proposed, built, handed to
// a GPU, maybe handed again (its GPU failed, or its win went stale).
struct Flight {
  Proposal proposal;
  int id = 0;
  std::future<PreparedBuild> build;     // built ahead on spare cores, when valid
  std::optional<PreparedBuild> built;
  std::string started;
  double t0 = 0;
  int pinned = -1;                      // the lane that must measure it again (a stale win)
  int lane_failures = 0;
  nlohmann::json earlier = nlohmann::json::array();   // its stale wins: GPU, incumbent, speedup
};

// What a lane's worker needs, copied so it shares nothing writable with the loop.
struct LaneJob {
  int id = 0;
  unsigned long long seed = 0;                  // the candidate's
  std::filesystem::path artifact;
  int incumbent_id = 0;                         // measured against this incumbent
  std::filesystem::path incumbent_artifact;
  bool refresh_aa = false;                      // measure the lane's A/A first
  int aa_after_id = 0;
  std::vector<Workload> quick, rest, timed;     // rest: the non-quick and the hidden ones
};

struct LaneOutcome {
  enum class Kind {
    Judged,      // the candidate has a decision (a keep still to be confirmed by the loop)
    LaneFailed,  // the GPU or its harness failed, not the candidate: judge it elsewhere
  };
  Kind kind = Kind::Judged;
  Decision decision = Decision::Error;
  bool passed = false;                          // beat the incumbent it was measured against
  std::string reason;
  bool lane_lost = false;                       // its harness cannot be restarted
  nlohmann::json rec = nlohmann::json::object();   // verify, screen, bench, confirm, speedup...
  std::optional<MeasureOutcome> aa;             // the refresh, when asked for
  double aa_half_width = 0;                     // the A/A the keep rule used
  double gpu_seconds = 0;
  std::optional<double> quick_us, incumbent_quick_us;
  std::map<std::string, double> medians;
  Comparison full, confirm;
  Verdict verdict;
};

// Runs on the lane's worker thread: loads the candidate, verifies it (quick,
// then the rest and the hidden set), screens it, measures and confirms it
// against the incumbent, interleaved, on this GPU only.
LaneOutcome judge_on_lane(const RunContext& ctx, GpuLane& lane, const LaneJob& job);

// Starts the lane's harness (not the first GPU's: setup did), loads the
// baseline and the incumbent, verifies the baseline and measures the lane's
// A/A. Any thread. false + *why when the GPU cannot be used.
struct LaneStart {
  bool ok = false;
  std::string why;
  VerifyOutcome verify;
  MeasureOutcome aa;
};
LaneStart start_lane(const RunContext& ctx, GpuLane& lane);

// lane_record.cpp, the loop's thread only. The candidate's one line and what
// the run learns from it (history, the agent, the cache, its build folder);
// false + *log_failed when the log cannot take it.
bool record_candidate_line(RunContext& ctx, Flight& f, const GpuLane* lane, const LaneOutcome* o, Decision decision,
                           const std::string& reason, const nlohmann::json& extra,
                           std::deque<std::filesystem::path>& failures, std::string* log_failed);
// A win against the current incumbent, kept: the sanitizer and the best
// against the start on the GPU that judged it (idle, the candidate still
// loaded), the commit, the line; then that GPU loads the new incumbent (the
// others do before their next candidate).
void keep_on_lane(RunContext& ctx, GpuLane& lane, Flight& f, const LaneOutcome& o,
                  std::deque<std::filesystem::path>& failures, std::string* log_failed);
// The worktree back to the incumbent's commit (after a commit that failed or was undone).
void restore_worktree(RunContext& ctx);

}  // namespace ar
