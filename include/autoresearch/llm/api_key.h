#pragma once
// The LLM key comes from the environment only, and is never part of any string
// this library produces: messages name the variable it came from, not its value.
#include <functional>
#include <string>

namespace ar {

enum class LlmProvider;

struct ApiKey {
  std::string value;   // empty: no key (fine for a local endpoint)
  std::string source;  // the variable it came from, e.g. "OPENAI_API_KEY"; empty when none

  bool empty() const { return value.empty(); }
  // "key from OPENAI_API_KEY" or "no key" — for messages and doctor.
  std::string describe() const;
};

// Reads one environment variable; nullptr when unset. Tests pass a map.
using EnvLookup = std::function<const char*(const char* name)>;
const char* process_env(const char* name);

// AUTORESEARCH_LLM_API_KEY, else OPENAI_API_KEY (openai) or ANTHROPIC_API_KEY
// (anthropic). A variable set to the empty string counts as unset.
ApiKey resolve_api_key(LlmProvider provider, const EnvLookup& env = process_env);

// The variables resolve_api_key reads for this provider, in order, e.g.
// "AUTORESEARCH_LLM_API_KEY or OPENAI_API_KEY" — for "set ... to a valid key".
std::string api_key_variables(LlmProvider provider);

// `text` with every occurrence of the key, and every token that looks like a
// provider key (sk-..., sk-ant-...), replaced by "[redacted]". Applied to every
// provider message this library quotes.
std::string redact_secrets(std::string text, const std::string& key);

}  // namespace ar
