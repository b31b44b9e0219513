#pragma once
// The checks of a bench's timed replays (SPEC §6, issue 7): a kernel must not
// be right when checked and skip work once it has been launched N times.
//
// Before timing, every checked slot runs once eagerly on every rotation; the
// runs on (up to verified_rotations) randomly drawn rotations are checked
// against the reference, and each output's fingerprint F[slot][rotation] is
// what every timed replay on those inputs must reproduce, bit for bit, when
// the kernel is deterministic: each sample's outputs are fingerprinted right
// after its stop event (outside the timed region) and compared. A
// nondeterministic kernel cannot be fingerprinted, so randomly drawn replays
// spread over the measurement, and the last round, are checked against the
// reference instead. Re-randomised inputs (a round inside the measurement and
// one replay per slot after it) are checked against the reference too.
//
// Outcomes: a replay that differs from its verified output is a GuardError
// ("timed-replay"), as is a nondeterministic timed replay outside the
// tolerance; an eager run or a re-randomised replay outside the tolerance is
// a wrong kernel (passed() false, the reason in report()); inputs that changed
// under the bench are a GuardError ("inputs").
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/bench.h"
#include "common/reference_keeper.h"

namespace ar::harness {

// What a checked replay was, for the messages and the report.
enum class Replay { Eager, Warmup, Timed, Rerandomised, Last, Final };
const char* replay_name(Replay r);

class ReplayGuard {
 public:
  ReplayGuard(Device& device, Problem& problem, const BenchRequest& request, int rotations, uint64_t seed);

  bool checks(size_t slot_index) const { return checked_.at(slot_index); }

  // Records every rotation's input fingerprint, then the eager runs (see
  // above). false when an eager run is wrong.
  bool establish();

  // After a sample of bench slot `slot_index` on `rotation`, outside the event
  // pair. `tolerance_check`: check this replay against the reference as well
  // (a nondeterministic kernel's drawn rounds). false when a check failed and
  // the bench should stop (passed() is then false); throws GuardError.
  bool after_sample(size_t slot_index, int rotation, long long round, Replay kind, bool tolerance_check);

  // Fresh inputs for `rotation`: its fingerprints and reference are forgotten,
  // and so are those of any other rotation whose inputs the problem redrew
  // with it (a shared buffer). The inputs must be as recorded until then.
  void rerandomise(int rotation, uint64_t seed);

  // After the last round: re-randomises `rotation`, replays each checked
  // slot's graph once (not a sample) and checks it against the reference.
  bool final_check(int rotation, uint64_t seed, bool cold);

  // GuardError("inputs") when a rotation's inputs differ from those recorded.
  void require_inputs_unchanged(const std::string& when);

  bool passed() const { return failure_.empty(); }
  const std::string& failure() const { return failure_; }
  long long fingerprinted_replays() const { return fingerprinted_; }
  json report() const;

 private:
  bool tolerance(size_t slot_index, int rotation, long long round, Replay kind, const std::string& fingerprint);
  [[noreturn]] void mismatch(size_t slot_index, int rotation, long long round, Replay kind);

  Device& device_;
  Problem& problem_;
  const BenchRequest& rq_;
  int rotations_;
  std::mt19937_64 rng_;
  std::vector<bool> checked_;                 // per bench slot
  std::vector<bool> verified_;                // per rotation: eager runs checked against the reference
  std::vector<std::vector<std::string>> f_;   // [slot][rotation]: the verified output's fingerprint, "" unknown
  std::vector<std::string> inputs_;           // per rotation
  ReferenceKeeper refs_;
  json entries_ = json::array();
  std::string failure_;
  long long fingerprinted_ = 0, tolerance_checks_ = 0, redrawn_rotations_ = 0;
  double fingerprint_seconds_ = 0;
};

}  // namespace ar::harness
