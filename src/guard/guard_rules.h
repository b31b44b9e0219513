#pragma once
// The guard's rules, in one table so they can be audited in one place: each rule
// has an id (what the log and the tests name), a description (what the reason
// sentence says) and the matchers that raise it. Most matchers look at single
// tokens; the few structural ones (declarations, line markers, scope) are
// implemented where noted and listed here so the table stays complete.
#include <string>
#include <vector>

#include "autoresearch/core/manifest.h"

namespace ar::guard_detail {

inline constexpr const char* kRuleScope = "scope";
inline constexpr const char* kRuleHostThread = "host-thread";
inline constexpr const char* kRuleStreamGraph = "stream-graph";
inline constexpr const char* kRuleCudaRuntime = "cuda-runtime";
inline constexpr const char* kRuleTimer = "timer";
inline constexpr const char* kRuleStaticCache = "static-cache";
inline constexpr const char* kRuleConstructor = "constructor";
inline constexpr const char* kRuleIo = "io";
inline constexpr const char* kRuleLineDirective = "line-directive";
inline constexpr const char* kRuleScanInput = "scan-input";
// The compiled-code scan (compiled_scan.h): rules only the compiler's output shows.
inline constexpr const char* kRuleImport = "import";
inline constexpr const char* kRuleSpecialRegister = "special-register";
inline constexpr const char* kRuleCompiledInput = "compiled-input";

struct RuleInfo {
  const char* id;
  const char* description;  // completes "guard: kernel.cu:42 <description> (<excerpt>)"
};
const std::vector<RuleInfo>& rule_infos();
// The description of a rule id; a generic one for an id not in the table.
std::string rule_description(const std::string& id);

enum class Match {
  Word,          // identifier, anywhere but after `.`/`->`
  Prefix,        // identifier starting with the word, anywhere but after `.`/`->`
  Use,           // identifier called, address taken, qualified (`::x`, `std::x`) or assigned as a value
  Qualified,     // "ns::name": name after `ns::` (or an alias of ns), or bare after `using namespace ns`
  RuntimeCall,   // cudaXxx(...) / __cudaXxx(...): any call into the CUDA runtime
  Attribute,     // identifier inside __attribute__((...)) or [[...]]
  AsmRegister,   // %word inside an asm string (PTX special registers)
  AsmWord,       // word inside an asm string (x86/ARM mnemonics and registers)
  AsmText,       // substring inside an asm string
  AsmDirective,  // a PTX/assembler directive (".global") starting a statement in an asm string
  Pragma,        // `#pragma <word>` ...; `except` lists allowed continuations
  LaunchChevrons,// `<<<` (a kernel launch from kernel code)
  Structural,    // implemented in code; see `where`
};

struct Matcher {
  const char* rule;
  Match match;
  std::vector<const char*> words;
  std::vector<const char*> except = {};  // Pragma only: allowed "omp simd" style prefixes
  bool cuda_only = false;
  const char* where = "";                // Structural only: the function that implements it
};

const std::vector<Matcher>& matchers();
bool applies(const Matcher& m, Backend backend);

}  // namespace ar::guard_detail
