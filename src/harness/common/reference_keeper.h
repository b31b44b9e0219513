#pragma once
// The reference results the checks compare against, kept out of the kernel's
// reach (SPEC §6, "the verdict"). The kernel shares an address space with the
// reference's buffers, so a launch after run_reference() could overwrite them
// with its own (wrong) answer and make the comparison agree. Each reference
// run is therefore fingerprinted right away, and the fingerprint must still
// hold when a check reads it; a problem that cannot fingerprint its reference
// gets the reference re-run right before each check instead, after the
// kernel's last launch. The comparison itself (Problem::check) runs after the
// kernel's last launch and writes into memory the problem fills afresh, so no
// kernel can touch its counters.
#include <string>
#include <vector>

#include "common/device.h"

namespace ar::harness {

class ReferenceKeeper {
 public:
  ReferenceKeeper(Problem& problem, int rotations);

  // The rotation's inputs changed: its reference must run again.
  void invalidate(int rotation);
  // Runs the reference on the rotation's current inputs unless it already ran
  // since they changed. Call it only after the kernel run that will be checked.
  void ensure(int rotation);
  bool fresh(int rotation) const;

  // The rotation's outputs against a reference no kernel has altered: throws
  // GuardError("verdict") naming `slot` when the reference's fingerprint
  // changed since it ran.
  std::vector<OutputCheck> check(int rotation, const std::vector<Tolerance>& tolerances, uint64_t sample_seed,
                                 const std::string& slot);

  // Runs of the reference so far (the bench reports them).
  int reference_runs() const { return runs_; }

 private:
  Problem& problem_;
  std::vector<bool> valid_;
  std::vector<std::string> fingerprint_;   // "" when the problem has none
  int runs_ = 0;
};

}  // namespace ar::harness
