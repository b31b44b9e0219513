// The settings' spellings, defaults and checks: one place for each.
#include <cmath>

#include <fmt/format.h>

#include "autoresearch/llm/llm_client.h"
#include "error_policy.h"
#include "protocol.h"

namespace ar {

std::string_view to_string(LlmProvider provider) {
  return provider == LlmProvider::anthropic ? "anthropic" : "openai";
}

std::optional<LlmProvider> parse_llm_provider(std::string_view text) {
  if (text == "openai") return LlmProvider::openai;
  if (text == "anthropic") return LlmProvider::anthropic;
  return std::nullopt;
}

std::string_view to_string(MaxTokensField field) {
  switch (field) {
    case MaxTokensField::max_tokens: return "max_tokens";
    case MaxTokensField::max_completion_tokens: return "max_completion_tokens";
    case MaxTokensField::automatic: break;
  }
  return "auto";
}

std::optional<MaxTokensField> parse_max_tokens_field(std::string_view text) {
  if (text == "auto") return MaxTokensField::automatic;
  if (text == "max_tokens") return MaxTokensField::max_tokens;
  if (text == "max_completion_tokens") return MaxTokensField::max_completion_tokens;
  return std::nullopt;
}

std::string_view to_string(LlmErrorKind kind) {
  switch (kind) {
    case LlmErrorKind::auth: return "auth";
    case LlmErrorKind::quota: return "quota";
    case LlmErrorKind::bad_request: return "bad_request";
    case LlmErrorKind::unavailable: return "unavailable";
    case LlmErrorKind::bad_response: return "bad_response";
    case LlmErrorKind::cancelled: return "cancelled";
  }
  return "unknown";
}

std::string default_base_url(LlmProvider provider) {
  return provider == LlmProvider::anthropic ? "https://api.anthropic.com" : "https://api.openai.com/v1";
}

std::string effective_base_url(const LlmSettings& settings) {
  std::string url = settings.base_url.empty() ? default_base_url(settings.provider) : settings.base_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  // The Anthropic path already starts with /v1; "https://host/v1" is a common
  // way to write the base, and "/v1/v1/messages" would only be a 404.
  if (settings.provider == LlmProvider::anthropic && url.size() > 3 &&
      url.compare(url.size() - 3, 3, "/v1") == 0) {
    url.resize(url.size() - 3);
  }
  return url;
}

std::string completion_url(const LlmSettings& settings) {
  return effective_base_url(settings) +
         (settings.provider == LlmProvider::anthropic ? "/v1/messages" : "/chat/completions");
}

namespace {

std::string host_of(const std::string& url) {
  size_t start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  size_t end = url.find_first_of("/:?#", start);
  std::string host = url.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (size_t at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
  return host;
}

}  // namespace

std::string max_tokens_field_name(const LlmSettings& settings) {
  if (settings.provider == LlmProvider::anthropic) return "max_tokens";
  switch (settings.max_tokens_field) {
    case MaxTokensField::max_tokens: return "max_tokens";
    case MaxTokensField::max_completion_tokens: return "max_completion_tokens";
    case MaxTokensField::automatic: break;
  }
  bool openai_itself = host_of(effective_base_url(settings)) == "api.openai.com";
  return openai_itself && openai_model_needs_max_completion_tokens(settings.model)
             ? "max_completion_tokens"
             : "max_tokens";
}

std::string validate_llm_settings(const LlmSettings& s) {
  if (s.model.empty()) return "the LLM model is not set: set --llm-model";
  if (!s.base_url.empty() && s.base_url.rfind("http://", 0) != 0 && s.base_url.rfind("https://", 0) != 0) {
    return fmt::format("--llm-base-url '{}': expected a URL starting with http:// or https://",
                       url_for_messages(s.base_url));
  }
  if (s.max_output_tokens < 1) {
    return fmt::format("--llm-max-output-tokens {}: expected a positive number", s.max_output_tokens);
  }
  if (s.temperature && !(std::isfinite(*s.temperature) && *s.temperature >= 0 && *s.temperature <= 2)) {
    return fmt::format("--llm-temperature {}: expected a number from 0 to 2", *s.temperature);
  }
  if (!(s.connect_timeout_s > 0) || !(s.total_timeout_s > 0) || !(s.idle_timeout_s >= 0)) {
    return "LLM timeouts: the connect and total timeouts must be > 0 s, the idle timeout >= 0 s";
  }
  if (s.max_attempts < 1 || s.max_bad_response_attempts < 1) {
    return "LLM attempts: max_attempts and max_bad_response_attempts must be at least 1";
  }
  if (!(s.backoff_initial_s >= 0) || !(s.backoff_max_s >= s.backoff_initial_s)) {
    return "LLM backoff: expected 0 <= backoff_initial_s <= backoff_max_s";
  }
  if (s.provider == LlmProvider::anthropic && s.anthropic_version.empty()) {
    return "the anthropic-version header value is empty";
  }
  return "";
}

bool endpoint_bills(const LlmSettings& settings) {
  return settings.paid ? *settings.paid : is_paid_endpoint(effective_base_url(settings));
}

std::string missing_key_problem(const LlmSettings& settings, const ApiKey& key) {
  if (!key.empty()) return "";
  std::string base = effective_base_url(settings);
  if (!endpoint_bills(settings)) return "";
  return fmt::format("no API key for {}: set {} (a local endpoint, e.g. --llm-base-url "
                     "http://localhost:8000/v1, needs none)",
                     url_for_messages(base), api_key_variables(settings.provider));
}

std::string describe_endpoint(const LlmSettings& settings, const ApiKey& key) {
  return fmt::format("{} {} {} ({})", to_string(settings.provider),
                     url_for_messages(effective_base_url(settings)), settings.model,
                     key.describe());
}

}  // namespace ar
