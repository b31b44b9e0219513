#include "autoresearch/llm/api_key.h"

#include "autoresearch/util/redact.h"

#include <cctype>
#include <cstdlib>

#include "autoresearch/llm/llm_client.h"

namespace ar {
namespace {

const char* provider_variable(LlmProvider provider) {
  return provider == LlmProvider::anthropic ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
}

}  // namespace

const char* process_env(const char* name) { return std::getenv(name); }

std::string ApiKey::describe() const { return empty() ? "no key" : "key from " + source; }

ApiKey resolve_api_key(LlmProvider provider, const EnvLookup& env) {
  for (const char* name : {"AUTORESEARCH_LLM_API_KEY", provider_variable(provider)}) {
    const char* value = env(name);
    if (value && *value) return ApiKey{value, name};
  }
  return {};
}

std::string api_key_variables(LlmProvider provider) {
  return std::string("AUTORESEARCH_LLM_API_KEY or ") + provider_variable(provider);
}

std::string redact_secrets(std::string text, const std::string& key) {
  static const std::string kRedacted = "[redacted]";
  if (!key.empty()) {
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + kRedacted.size())) {
      text.replace(at, key.size(), kRedacted);
    }
  }
  // Then what any text from outside gets: the environment's secrets and
  // key-shaped tokens (providers echo masked keys in their 401 messages).
  return redact_secrets(std::move(text));
}

}  // namespace ar
