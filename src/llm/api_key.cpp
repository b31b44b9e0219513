#include "autoresearch/llm/api_key.h"

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
  // Key-shaped tokens: providers echo (partly masked) keys in 401 messages,
  // e.g. "Incorrect API key provided: sk-proj-****abcd".
  auto key_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '*' || c == '.';
  };
  for (size_t at = text.find("sk-"); at != std::string::npos; at = text.find("sk-", at + 1)) {
    if (at > 0 && key_char(text[at - 1]) && text[at - 1] != '.') continue;  // inside a word
    size_t end = at + 3;
    while (end < text.size() && key_char(text[end])) ++end;
    while (end > at + 3 && text[end - 1] == '.') --end;  // a sentence's full stop
    if (end - at >= 8) text.replace(at, end - at, kRedacted);
  }
  return text;
}

}  // namespace ar
