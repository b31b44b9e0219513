#pragma once
// The plateau rule, sized to the space that is left (issue 11): a night is not
// spent on the last configurations of a space that stopped paying. The run
// stops after `configured` candidates in a row without a keep, or after half of
// the configurations that were still untried at the last keep (at least one),
// whichever comes first; when the agent cannot count what is left (a text
// agent, a space too large to list), the configured window alone applies.
// When nothing is left untried the run stops anyway: the agent has no proposal.
#include <optional>
#include <string>

namespace ar {

// The window in candidates without a keep; 0: the rule is off (configured 0).
long long plateau_window(int configured, std::optional<long long> untried_at_keep);
// Why the run stops for the plateau after `since_keep` candidates, or empty.
std::string plateau_reason(int configured, std::optional<long long> untried_at_keep, long long since_keep);

}  // namespace ar
