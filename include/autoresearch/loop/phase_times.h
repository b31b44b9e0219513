#pragma once
// Where a run's wall time goes (issue 11): seconds per phase of the loop, read
// from the world's clock so tests with a fake clock see exact numbers. Phases
// nest (a revert inside a failed screen is git time, not screen time): the
// innermost open phase is the one charged, so the phases never overlap and
// their sum never exceeds the wall time. What no phase covers is "other", the
// driver's own overhead. One thread only: builds made ahead on other threads
// are charged as build_wait when the loop waits for them.
#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autoresearch/util/clock.h"

namespace ar {

enum class Phase {
  Setup,       // preflight, baseline, the first A/A (before the first candidate)
  Agent,       // the agent proposing (a model call, a command, the tuner)
  Apply,       // writing the proposal into the worktree
  Guard,       // scope check, and the source scan when the build is not made ahead
  Build,       // compiling, when the loop compiles itself (CPU packages)
  BuildWait,   // waiting for a build made ahead on spare cores
  Verify,      // the oracle: quick set, then every workload and the hidden ones
  TuneEach,    // the hybrid sweep of a text candidate's tunables
  Screen,      // the quick interleaved screen
  Measure,     // the full interleaved measurement
  Confirm,     // the confirming re-run
  Sanitizer,   // compute-sanitizer on a candidate about to be kept
  VsBaseline,  // the best re-measured against the start (at a keep, at the end)
  Git,         // commits, reverts, diffs
  AaRefresh,   // the A/A noise re-measured during the run
  Log,         // writing the experiment log line
};
inline constexpr size_t kPhaseCount = 16;

const char* phase_name(Phase p);   // the log's spelling: "build_wait", "aa_refresh", ...

struct PhaseSeconds {
  std::array<double, kPhaseCount> seconds{};
  double& operator[](Phase p) { return seconds[static_cast<size_t>(p)]; }
  double operator[](Phase p) const { return seconds[static_cast<size_t>(p)]; }
  double total() const;
  PhaseSeconds operator-(const PhaseSeconds& earlier) const;
  // {"agent": s, ..., "other": wall - total}: every phase, zeros included, so
  // jq sums never meet a missing key.
  nlohmann::json to_json(double wall_seconds) const;
};

class PhaseTimes {
 public:
  // The clock is read through the pointer it is given, so a World whose clock
  // is set after the run's context was made still times it (tests do that).
  explicit PhaseTimes(Clock* const& clock) : clock_(&clock) {}
  // Charges the time from now on to `p` until the scope ends.
  class Scope {
   public:
    Scope(PhaseTimes& t, Phase p) : t_(&t) { t_->enter(p); }
    ~Scope() { t_->leave(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    PhaseTimes* t_;
  };
  Scope time(Phase p) { return Scope(*this, p); }
  // The totals so far, the open phases charged up to now.
  PhaseSeconds totals();

 private:
  void enter(Phase p);
  void leave();
  void charge(double now);
  double now() const { return *clock_ ? (*clock_)->now_seconds() : 0; }

  Clock* const* clock_;
  PhaseSeconds totals_;
  std::vector<Phase> open_;
  double mark_ = 0;
};

// "measure 41%, screen 20%, ..., other 3%" (largest first, phases under 0.5%
// left out) for the end-of-run summary.
std::string phase_breakdown_text(const PhaseSeconds& s, double wall_seconds);

}  // namespace ar
