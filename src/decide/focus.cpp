#include "autoresearch/decide/focus.h"

#include <fnmatch.h>

#include <fmt/format.h>

namespace ar {

bool in_focus(const std::vector<std::string>& patterns, const std::string& workload) {
  for (const std::string& p : patterns)
    if (p == workload || fnmatch(p.c_str(), workload.c_str(), 0) == 0) return true;
  return false;
}

std::vector<std::string> focus_names(const std::vector<std::string>& patterns,
                                     const std::vector<std::string>& workloads) {
  std::vector<std::string> out;
  for (const std::string& w : workloads)
    if (in_focus(patterns, w)) out.push_back(w);
  return out;
}

std::string focus_problem(const std::vector<std::string>& patterns, const std::vector<std::string>& timed) {
  for (const std::string& p : patterns) {
    if (p.empty()) return "--focus: an empty pattern (name a timed workload, or a glob such as 'fp8_*')";
    if (!focus_names({p}, timed).empty()) continue;
    std::string names;
    for (const std::string& t : timed) names.append(names.empty() ? "" : ", ").append(t);
    return fmt::format("--focus {}: matches none of the timed workloads ({}); a run is judged on timed "
                       "workloads only", p, names);
  }
  return "";
}

std::string focus_text(const std::vector<std::string>& patterns, const std::vector<std::string>& timed) {
  std::string names;
  const auto picked = focus_names(patterns, timed);
  for (const std::string& n : picked) names.append(names.empty() ? "" : ", ").append(n);
  return fmt::format("{} ({} of {} timed workloads)", names, picked.size(), timed.size());
}

}  // namespace ar
