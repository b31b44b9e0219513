#include "common/state_watch.h"

#include <algorithm>

namespace ar::harness {

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

std::string describe_variable(const ModuleVariable& v) {
  std::string kind = "variable";
  if (starts_with(v.section, ".nv.global")) kind = "__device__ global";
  else if (starts_with(v.section, ".nv.constant")) kind = "__constant__ variable";
  return kind + " `" + v.name + "` (" + std::to_string(v.bytes) + " bytes)";
}

GuardError state_guard_error(const StateChange& c, const std::string& when) {
  std::string what = c.now.hash.empty() ? " disappeared" : " changed between launches";
  return GuardError("state",
                    "keeps state across calls: " + describe_variable(c.was) + what + " (slot " + c.slot + ", " +
                        when + ")",
                    c.slot, nlohmann::json{{"variable", c.was.name}, {"section", c.was.section}, {"bytes", c.was.bytes}});
}

void StateWatch::baseline(const std::string& slot) { baseline_[slot] = device_.module_state(slot); }

void StateWatch::forget(const std::string& slot) { baseline_.erase(slot); }

std::vector<StateChange> StateWatch::changes() {
  std::vector<StateChange> out;
  for (const auto& [slot, was] : baseline_) {
    if (was.empty()) continue;   // nothing that could change
    const std::vector<ModuleVariable> now = device_.module_state(slot);
    for (const ModuleVariable& v : was) {
      auto it = std::find_if(now.begin(), now.end(), [&](const ModuleVariable& n) { return n.name == v.name; });
      if (it != now.end() && it->hash == v.hash && it->bytes == v.bytes) continue;
      StateChange c{slot, v, it != now.end() ? *it : ModuleVariable{v.name, v.section, v.bytes, ""}};
      out.push_back(std::move(c));
      break;
    }
  }
  return out;
}

void StateWatch::require_unchanged(const std::string& when) {
  const auto found = changes();
  if (!found.empty()) throw state_guard_error(found.front(), when);
}

}  // namespace ar::harness
