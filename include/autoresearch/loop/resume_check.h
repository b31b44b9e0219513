#pragma once
// Whether a resumed run would stop before its first candidate: the run ended
// with a `final` line whose stop reason still holds under the resumed config
// (the goal reached and not raised, --max-iters reached and not raised). Then
// the resume stops at once with a message that says what to change, instead of
// re-measuring the noise and the best for a minute first.
#include <string>

#include "autoresearch/core/config.h"
#include "autoresearch/log/experiment_log.h"

namespace ar {

// true: *why says what held and how to continue; *exit_code is what the run
// would have returned (0 goal reached, 3 a budget). `cfg` is the resumed config
// (the header's config with the command line's overrides applied).
bool resume_would_stop_at_once(const LogContents& log, const RunConfig& cfg, std::string* why,
                               int* exit_code = nullptr);

}  // namespace ar
