#include "autoresearch/core/decision.h"

#include <array>
#include <utility>

namespace ar {

namespace {

constexpr std::array<std::pair<Decision, const char*>, 11> kNames = {{
    {Decision::Keep, "keep"},
    {Decision::Discard, "discard"},
    {Decision::BuildError, "build_error"},
    {Decision::Wrong, "wrong"},
    {Decision::Timeout, "timeout"},
    {Decision::Crash, "crash"},
    {Decision::RejectedByGuard, "rejected_by_guard"},
    {Decision::AgentError, "agent_error"},
    {Decision::Interrupted, "interrupted"},
    {Decision::Abandoned, "abandoned"},
    {Decision::Error, "error"},
}};

}  // namespace

const char* decision_name(Decision d) {
  for (const auto& [value, name] : kNames)
    if (value == d) return name;
  return "error";
}

std::optional<Decision> parse_decision(std::string_view name) {
  for (const auto& [value, spelling] : kNames)
    if (name == spelling) return value;
  return std::nullopt;
}

bool is_candidate_failure(Decision d) {
  switch (d) {
    case Decision::BuildError:
    case Decision::Wrong:
    case Decision::Timeout:
    case Decision::Crash:
    case Decision::RejectedByGuard:
    case Decision::AgentError:
      return true;
    default:
      return false;
  }
}

bool describes_candidate(Decision d) {
  return d != Decision::Interrupted && d != Decision::Abandoned && d != Decision::Error;
}

}  // namespace ar
