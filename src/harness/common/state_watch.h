#pragma once
// "No state survives between launches" (SPEC §6): every variable a loaded
// module keeps across launches (CUDA: each __device__ / __constant__ variable
// of the cubin, found from its symbol table whatever the source calls it) is
// hashed right after load, and again after every verify and bench, and
// during a bench. A kernel that changes one keeps state across calls — a launch
// counter, a cache, a phase flag — and is rejected, whatever it does with it.
// The workspace, the other place a kernel could keep state, is re-poisoned
// by the device before every launch.
#include <map>
#include <string>
#include <vector>

#include "common/device.h"

namespace ar::harness {

struct StateChange {
  std::string slot;
  ModuleVariable was;   // at load
  ModuleVariable now;   // now (hash "" when the variable disappeared)
};

// "__device__ global `g_calls` (4 bytes)": how a variable is named in messages.
std::string describe_variable(const ModuleVariable& v);

class StateWatch {
 public:
  explicit StateWatch(Device& device) : device_(device) {}

  // The slot's state right after load: what every later snapshot must equal.
  void baseline(const std::string& slot);
  void forget(const std::string& slot);
  bool watching(const std::string& slot) const { return baseline_.count(slot) != 0; }

  // Every watched slot whose state differs from its baseline (the first
  // changed variable of each).
  std::vector<StateChange> changes();

  // Throws GuardError("state") for the first change; `when` completes the
  // message ("after verify", "during the bench, by round 120").
  void require_unchanged(const std::string& when);

 private:
  Device& device_;
  std::map<std::string, std::vector<ModuleVariable>> baseline_;
};

// The GuardError a change is reported as.
GuardError state_guard_error(const StateChange& change, const std::string& when);

}  // namespace ar::harness
