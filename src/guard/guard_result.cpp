#include "autoresearch/guard/guard.h"
#include "guard_rules.h"

namespace ar {

std::string GuardResult::reason() const {
  if (findings.empty()) return pass ? "" : "guard: rejected";
  const GuardFinding& f = findings.front();
  std::string s = "guard: " + f.where + " " + guard_detail::rule_description(f.rule);
  if (!f.excerpt.empty()) s += " (" + f.excerpt + ")";
  if (findings.size() > 1) s += " and " + std::to_string(findings.size() - 1) + " more";
  return s;
}

}  // namespace ar
