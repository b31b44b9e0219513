#pragma once
// One request's hold on the problem and the device: whatever happens inside a
// verify or bench (a wrong kernel, a launch error, an exception), the device's
// bindings are dropped before the problem's buffers are freed, so the next
// request starts clean.
#include <exception>

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
