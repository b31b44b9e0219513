#pragma once
// Applies the token matchers of the rule table (guard_rules.h) to the editable
// tokens and pragma lines.
#include <string>
#include <vector>

#include "autoresearch/core/manifest.h"
#include "autoresearch/guard/guard.h"
#include "cpp_lexer.h"

namespace ar::guard_detail {

std::vector<GuardFinding> match_tokens(const std::vector<Token>& tokens, const std::vector<SourceLine>& pragmas,
                                       const std::vector<std::string>& display_names, Backend backend);

}  // namespace ar::guard_detail
