#pragma once
// One request's hold on the problem and the device: whatever happens inside a
// verify or bench (a wrong kernel, a launch error, an exception), the device's
// bindings are dropped before the problem's buffers are freed, so the next
// request starts clean.
#include <exception>
#include <string>

#include "common/device.h"

namespace ar::harness {

class ProblemSession {
 public:
  ProblemSession(Device& device, Problem& problem) : device_(device), problem_(problem) {}
  ProblemSession(const ProblemSession&) = delete;
  ProblemSession& operator=(const ProblemSession&) = delete;

  void prepare(const nlohmann::json& params, int rotations) {
    problem_.prepare(params, rotations);
    prepared_ = true;
  }

  // What verify and exercise run `slot` on: one rotation of the workload,
  // never padded, after the checks both need (the slot is loaded, the problem
  // has inputs to draw, the workload is valid before anything is allocated).
  void prepare_unpadded_rotation(const std::string& slot, const nlohmann::json& params) {
    if (!device_.loaded(slot)) throw HarnessError("bad_request", "slot '" + slot + "' is not loaded", slot);
    if (problem_.distributions() < 1)
      throw HarnessError("problem_error", "the problem declares no input distributions");
    problem_.rotation_bytes(params);
    prepare(params, 1);
    device_.bind(slot, problem_, 1, kNoPad);
  }

  ~ProblemSession() {
    try {
      device_.unbind_all();
    } catch (const std::exception&) {
      // A device that cannot unbind is broken; the next call reports it.
    }
    if (prepared_) {
      try {
        problem_.release();
      } catch (const std::exception&) {
      }
    }
  }

 private:
  Device& device_;
  Problem& problem_;
  bool prepared_ = false;
};

}  // namespace ar::harness
