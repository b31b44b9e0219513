#pragma once
// What became of a candidate: one enum, spelled once for the log. A new kind of
// ending (an agent's malformed answer, a candidate abandoned by a kill -9) is a
// new value here, so no comparison of strings elsewhere can miss it.
#include <optional>
#include <string>
#include <string_view>

namespace ar {

enum class Decision {
  Keep,             // committed: faster, significant, confirmed, clean
  Discard,          // correct but not (provably) faster
  BuildError,       // does not compile, or the harness refuses the artifact
  Wrong,            // fails verification (or the sanitizer)
  Timeout,          // compile, verify or measurement ran out of time
  Crash,            // the kernel crashed the harness
  RejectedByGuard,  // a guard refused it: scope, source or code scan, state, timing faults
  AgentError,       // the agent produced nothing usable (malformed answer, failed command)
  Interrupted,      // SIGINT/SIGTERM while it was judged
  Abandoned,        // the run died while it was judged (kill -9); logged on resume
  Error,            // infrastructure: the harness, git or the disk failed, not the candidate
};

// The log's spelling ("keep", "rejected_by_guard", ...).
const char* decision_name(Decision d);
// The inverse; nullopt for a spelling that is not a decision.
std::optional<Decision> parse_decision(std::string_view name);

// The candidate's own fault: a dead end for a search, never a parent.
bool is_candidate_failure(Decision d);
// Says something about the configuration itself, so it may be cached and fed
// back to the agent (not an interruption or an infrastructure failure).
bool describes_candidate(Decision d);

}  // namespace ar
