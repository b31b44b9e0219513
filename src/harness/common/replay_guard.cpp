#include "common/replay_guard.h"

#include <algorithm>
#include <chrono>

#include "common/replay_schedule.h"

namespace ar::harness {

const char* replay_name(Replay r) {
  switch (r) {
    case Replay::Eager: return "eager";
    case Replay::Warmup: return "warm-up";
    case Replay::Timed: return "timed";
    case Replay::Rerandomised: return "rerandomised";
    case Replay::Last: return "last";
    case Replay::Final: return "final";
  }
  return "?";
}

namespace {

// "timed replay 37 (rotation 2)", "warm-up replay 3 (rotation 1)".
std::string replay_words(Replay kind, long long round, int rotation) {
  std::string what;
  switch (kind) {
    case Replay::Eager: what = "the eager run"; break;
    case Replay::Warmup: what = "warm-up replay " + std::to_string(round); break;
    case Replay::Final: what = "the replay after the last round"; break;
    case Replay::Last: what = "the last round's replay " + std::to_string(round); break;
    default: what = "timed replay " + std::to_string(round); break;
  }
  return what + " (rotation " + std::to_string(rotation) + ")";
}

}  // namespace

ReplayGuard::ReplayGuard(Device& device, Problem& problem, const BenchRequest& rq, int rotations, uint64_t seed)
    : device_(device), problem_(problem), rq_(rq), rotations_(rotations), rng_(seed),
      checked_(rq.slots.size(), false), refs_(problem, rotations) {
  const ReplayCheckRequest& rc = *rq.replay_check;
  for (size_t i = 0; i < rq.slots.size(); ++i)
    checked_[i] = std::find(rc.slots.begin(), rc.slots.end(), rq.slots[i]) != rc.slots.end();
  verified_ = draw_verified_rotations(rotations, rc.verified_rotations, rng_);
  f_.assign(rq.slots.size(), std::vector<std::string>(static_cast<size_t>(rotations)));
  inputs_.resize(static_cast<size_t>(rotations));
}

bool ReplayGuard::establish() {
  for (int r = 0; r < rotations_; ++r) inputs_[static_cast<size_t>(r)] = problem_.input_fingerprint(r);
  for (size_t i = 0; i < rq_.slots.size(); ++i) {
    if (!checked_[i]) continue;
    for (int r = 0; r < rotations_; ++r) {
      problem_.poison_outputs(r);
      device_.run(rq_.slots[i], r);
      const std::string fp = rq_.deterministic ? problem_.output_fingerprint(r) : "";
      if (verified_[static_cast<size_t>(r)]) {
        if (!tolerance(i, r, -1, Replay::Eager, fp)) return false;
      } else {
        f_[i][static_cast<size_t>(r)] = fp;
      }
    }
  }
  return true;
}

bool ReplayGuard::after_sample(size_t i, int r, long long round, Replay kind, bool tolerance_check) {
  if (!checked_.at(i)) return true;
  const auto ri = static_cast<size_t>(r);
  if (rq_.deterministic) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::string fp = problem_.output_fingerprint(r);
    fingerprint_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++fingerprinted_;
    if (!f_[i][ri].empty()) {
      if (fp != f_[i][ri]) mismatch(i, r, round, kind);
      if (!tolerance_check) return true;
    }
    // New inputs (no verified output yet): this replay is checked and becomes the verified output.
    return tolerance(i, r, round, kind == Replay::Timed ? Replay::Rerandomised : kind, fp);
  }
  // Nothing to fingerprint against: the drawn rounds and fresh inputs are checked.
  if (!tolerance_check && kind != Replay::Rerandomised && kind != Replay::Final) return true;
  return tolerance(i, r, round, kind, "");
}

bool ReplayGuard::tolerance(size_t i, int r, long long round, Replay kind, const std::string& fp) {
  const std::string& slot = rq_.slots[i];
  refs_.ensure(r);   // after this run: a reference computed before it is protected by its fingerprint
  const auto checks = refs_.check(r, rq_.replay_check->tolerances, rng_(), slot);
  ++tolerance_checks_;
  std::string reason;
  const bool pass = checks_pass(checks, &reason);
  json entry{{"what", replay_name(kind)}, {"slot", slot}, {"rotation", r}, {"pass", pass}};
  if (round >= 0) entry["round"] = round;
  if (!pass) {
    entry["reason"] = reason;
    entry["outputs"] = to_json(checks);
  }
  entries_.push_back(std::move(entry));
  if (pass) {
    if (rq_.deterministic) f_[i][static_cast<size_t>(r)] = fp;
    return true;
  }
  const std::string where = replay_words(kind, round, r) + " of slot " + slot;
  // A nondeterministic kernel's timed replay on inputs whose eager run passed:
  // it behaves differently once timed.
  if (!rq_.deterministic && (kind == Replay::Timed || kind == Replay::Last))
    throw GuardError("timed-replay",
                     where + " is outside the tolerance (" + reason + "): the kernel behaves differently once timed",
                     slot, json{{"round", round}, {"rotation", r}, {"replay", replay_name(kind)}});
  if (failure_.empty()) {
    failure_ = kind == Replay::Eager ? where + " on the bench's inputs is wrong: " + reason
                                     : where + " on re-randomised inputs is wrong: " + reason;
  }
  return false;
}

void ReplayGuard::mismatch(size_t i, int r, long long round, Replay kind) {
  const std::string& slot = rq_.slots[i];
  const json details{{"round", round}, {"rotation", r}, {"replay", replay_name(kind)}};
  if (problem_.input_fingerprint(r) != inputs_[static_cast<size_t>(r)])
    throw GuardError("inputs",
                     "the inputs of rotation " + std::to_string(r) + " changed during the bench (a kernel writes its "
                     "inputs); seen after " + replay_words(kind, round, r) + " of slot " + slot,
                     slot, details);
  throw GuardError("timed-replay",
                   replay_words(kind, round, r) + " of slot " + slot +
                       " differs from the verified output: the kernel behaves differently once timed",
                   slot, details);
}

void ReplayGuard::rerandomise(int rotation, uint64_t seed) {
  require_inputs_unchanged("before re-randomising rotation " + std::to_string(rotation));
  problem_.randomize(rotation, seed, 0);
  for (int r = 0; r < rotations_; ++r) {
    const auto ri = static_cast<size_t>(r);
    std::string now = problem_.input_fingerprint(r);
    if (r != rotation && now == inputs_[ri]) continue;
    if (r != rotation) ++redrawn_rotations_;   // a buffer shared between rotations was redrawn too
    inputs_[ri] = std::move(now);
    refs_.invalidate(r);
    for (auto& per_slot : f_) per_slot[ri].clear();
  }
}

bool ReplayGuard::final_check(int rotation, uint64_t seed, bool cold) {
  rerandomise(rotation, seed);
  for (size_t i = 0; i < rq_.slots.size(); ++i) {
    if (!checked_[i]) continue;
    problem_.poison_outputs(rotation);
    (void)device_.time_once(rq_.slots[i], rotation, cold);   // a replay of the timed graph, not a sample
    if (!after_sample(i, rotation, -1, Replay::Final, true)) return false;
  }
  return true;
}

void ReplayGuard::require_inputs_unchanged(const std::string& when) {
  for (int r = 0; r < rotations_; ++r)
    if (problem_.input_fingerprint(r) != inputs_[static_cast<size_t>(r)])
      throw GuardError("inputs",
                       "the inputs of rotation " + std::to_string(r) +
                           " changed during the bench (a kernel writes its inputs), found " + when,
                       "", json{{"rotation", r}});
}

json ReplayGuard::report() const {
  json slots = json::array(), verified = json::array();
  for (size_t i = 0; i < rq_.slots.size(); ++i)
    if (checked_[i]) slots.push_back(rq_.slots[i]);
  for (int r = 0; r < rotations_; ++r)
    if (verified_[static_cast<size_t>(r)]) verified.push_back(r);
  return json{{"pass", passed()},
              {"reason", failure_},
              {"slot", slots.empty() ? json("") : slots[0]},
              {"check_slots", slots},
              {"deterministic", rq_.deterministic},
              {"verified_rotations", verified},
              {"fingerprinted_replays", fingerprinted_},
              // The wall time one fingerprint takes (outside the timed region), for the cost per sample.
              {"fingerprint_us", fingerprinted_ > 0 ? 1e6 * fingerprint_seconds_ / static_cast<double>(fingerprinted_) : 0.0},
              {"tolerance_checks", tolerance_checks_},
              {"reference_runs", refs_.reference_runs()},
              {"redrawn_rotations", redrawn_rotations_},
              {"checks", entries_}};
}

}  // namespace ar::harness
