#pragma once
// The rules that need to know what a declaration declares, not only which
// tokens it has: mutable state with static storage duration (the result cache
// of SPEC §6) and asm at namespace scope. A light structural walk, not a C++
// parser: it tells namespace, class and block scopes apart, splits them into
// declarations, and decides "variable or function, const or not" for each.
#include <string>
#include <vector>

#include "autoresearch/guard/guard.h"
#include "cpp_lexer.h"

namespace ar::guard_detail {

// Flags, in the editable tokens:
//   - namespace-scope variables that are not const all the way down (plain,
//     `static`, `extern`, CUDA `__device__`/`__managed__` globals);
//   - `static` variables in functions and classes that are not const;
//   - static-storage variables initialised by an allocation (a const pointer to a
//     fresh buffer is still a cache);
//   - `mutable` data members (a const global object can hide one);
//   - asm at namespace scope (it can place code in .init_array).
// Fine: `__shared__`, `__constant__`, `const`/`constexpr` tables, functions of
// any kind (static, inline, __device__), types, templates, aliases.
std::vector<GuardFinding> scan_declarations(const std::vector<Token>& tokens,
                                            const std::vector<std::string>& display_names);

}  // namespace ar::guard_detail
