// Per-phase wall time (phase_times.h).
#include "autoresearch/loop/phase_times.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace ar {

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::Setup: return "setup";
    case Phase::Agent: return "agent";
    case Phase::Apply: return "apply";
    case Phase::Guard: return "guard";
    case Phase::Build: return "build";
    case Phase::BuildWait: return "build_wait";
    case Phase::Verify: return "verify";
    case Phase::TuneEach: return "tune_each";
    case Phase::Screen: return "screen";
    case Phase::Measure: return "measure";
    case Phase::Confirm: return "confirm";
    case Phase::Sanitizer: return "sanitizer";
    case Phase::VsBaseline: return "vs_baseline";
    case Phase::Git: return "git";
    case Phase::AaRefresh: return "aa_refresh";
    case Phase::Log: return "log";
  }
  return "?";
}

double PhaseSeconds::total() const {
  double s = 0;
  for (double v : seconds) s += v;
  return s;
}

PhaseSeconds PhaseSeconds::operator-(const PhaseSeconds& earlier) const {
  PhaseSeconds d;
  for (size_t i = 0; i < kPhaseCount; ++i) d.seconds[i] = seconds[i] - earlier.seconds[i];
  return d;
}

nlohmann::json PhaseSeconds::to_json(double wall_seconds) const {
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < kPhaseCount; ++i) j[phase_name(static_cast<Phase>(i))] = seconds[i];
  j["other"] = std::max(0.0, wall_seconds - total());
  return j;
}

void PhaseTimes::charge(double now) {
  if (!open_.empty()) totals_[open_.back()] += now - mark_;
  mark_ = now;
}

void PhaseTimes::enter(Phase p) {
  charge(now());
  open_.push_back(p);
}

void PhaseTimes::leave() {
  charge(now());
  if (!open_.empty()) open_.pop_back();
}

PhaseSeconds PhaseTimes::totals() {
  charge(now());
  return totals_;
}

std::string phase_breakdown_text(const PhaseSeconds& s, double wall_seconds) {
  if (!(wall_seconds > 0)) return "";
  std::vector<std::pair<double, std::string>> parts;
  for (size_t i = 0; i < kPhaseCount; ++i) parts.emplace_back(s.seconds[i], phase_name(static_cast<Phase>(i)));
  parts.emplace_back(std::max(0.0, wall_seconds - s.total()), "other");
  std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out;
  for (const auto& [sec, name] : parts) {
    double share = sec / wall_seconds;
    if (share < 0.005) continue;
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {:.0f}%", name, 100 * share);
  }
  return out;
}

}  // namespace ar
