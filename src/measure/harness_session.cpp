#include "autoresearch/measure/harness.h"

#include <csignal>
#include "autoresearch/util/errors.h"

namespace ar {

const nlohmann::json& HarnessSession::start() {
  std::string error;
  auto dev = h_.start(&error);
  if (!dev) throw Fatal(kExitInfrastructure, error);
  device_ = *dev;
  return device_;
}

HarnessReply HarnessSession::call(const nlohmann::json& req, std::chrono::milliseconds timeout) {
  HarnessReply r = h_.call(req, timeout);
  last_death_signal_ = r.status == HarnessReply::Status::Crashed ? r.signal : 0;
  return r;
}

bool killed_from_outside(int signal) {
  return signal == SIGKILL || signal == SIGTERM || signal == SIGHUP || signal == SIGINT || signal == SIGQUIT;
}

HarnessReply HarnessSession::load(const std::string& slot, const std::filesystem::path& artifact) {
  auto r = call({{"cmd", "load"}, {"slot", slot}, {"artifact", artifact.string()}}, std::chrono::seconds(60));
  if (r.ok()) slots_[slot] = artifact;
  else slots_.erase(slot);
  return r;
}

HarnessReply HarnessSession::verify(const std::string& slot, const nlohmann::json& workload,
                                    unsigned long long seed, const nlohmann::json& tolerances,
                                    bool deterministic, std::chrono::milliseconds timeout) {
  return call({{"cmd", "verify"},
               {"slot", slot},
               {"workload", workload},
               {"seed", seed},
               {"tolerances", tolerances},
               {"deterministic", deterministic}},
              timeout);
}

HarnessReply HarnessSession::bench(const std::vector<std::string>& slots, const nlohmann::json& workload,
                                   unsigned long long seed, const Sampling& s,
                                   const nlohmann::json& replay_check, std::chrono::milliseconds timeout,
                                   const std::optional<TimingPad>& pad) {
  nlohmann::json req = {{"cmd", "bench"},
                        {"slots", slots},
                        {"workload", workload},
                        {"seed", seed},
                        {"cold", s.cold},
                        {"deterministic", s.deterministic},
                        {"min_samples", s.min_samples},
                        {"min_seconds", s.min_seconds},
                        {"max_seconds", s.max_seconds},
                        {"max_samples", s.max_samples},
                        {"target_rel_ci", s.target_rel_ci}};
  if (!replay_check.is_null()) req["replay_check"] = replay_check;
  if (pad) req["pad"] = {{"slot", pad->slot}, {"us", pad->us}};
  return call(req, timeout);
}

bool HarnessSession::recover(const std::string& culprit, std::string* error) {
  slots_.erase(culprit);
  auto dev = h_.start(error);
  if (!dev) return false;
  device_ = *dev;
  // Every slot whose artifact is still there comes back; one whose build folder
  // was cleaned (a candidate already judged) is forgotten, and a reload that
  // fails does not stop the others from coming back.
  std::string failures;
  for (const auto& [slot, artifact] : std::map(slots_)) {
    std::error_code ec;
    if (!std::filesystem::exists(artifact, ec)) {
      slots_.erase(slot);
      continue;
    }
    auto r = call({{"cmd", "load"}, {"slot", slot}, {"artifact", artifact.string()}}, std::chrono::seconds(60));
    if (!r.ok()) {
      slots_.erase(slot);
      failures += (failures.empty() ? "" : "; ") + ("reloading " + slot + " after a restart failed: " + r.message);
    }
  }
  if (!failures.empty() && error) *error = failures;
  return failures.empty();
}

}  // namespace ar
