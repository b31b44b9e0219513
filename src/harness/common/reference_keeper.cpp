#include "common/reference_keeper.h"

namespace ar::harness {

ReferenceKeeper::ReferenceKeeper(Problem& problem, int rotations)
    : problem_(problem), valid_(static_cast<size_t>(rotations), false),
      fingerprint_(static_cast<size_t>(rotations)) {}

void ReferenceKeeper::invalidate(int rotation) { valid_.at(static_cast<size_t>(rotation)) = false; }

bool ReferenceKeeper::fresh(int rotation) const { return valid_.at(static_cast<size_t>(rotation)); }

void ReferenceKeeper::ensure(int rotation) {
  const auto r = static_cast<size_t>(rotation);
  if (valid_.at(r)) return;
  problem_.run_reference(rotation);
  ++runs_;
  fingerprint_[r] = problem_.reference_fingerprint(rotation);
  valid_[r] = true;
}

std::vector<OutputCheck> ReferenceKeeper::check(int rotation, const std::vector<Tolerance>& tolerances,
                                                uint64_t sample_seed, const std::string& slot) {
  const auto r = static_cast<size_t>(rotation);
  ensure(rotation);
  if (fingerprint_[r].empty()) {
    // Nothing to prove the old results with: make fresh ones, after the last launch.
    problem_.run_reference(rotation);
    ++runs_;
  } else if (problem_.reference_fingerprint(rotation) != fingerprint_[r]) {
    valid_[r] = false;
    throw GuardError("verdict",
                     "the kernel wrote outside its outputs: the reference's buffers changed after the reference ran "
                     "(rotation " + std::to_string(rotation) + ")",
                     slot, nlohmann::json{{"rotation", rotation}});
  }
  return problem_.check(rotation, tolerances, sample_seed);
}

}  // namespace ar::harness
