#pragma once
// Which failures are worth another attempt, and what to tell the user about
// the ones that are not. One place for the whole policy:
// - retried: 408, 409, 429 (rate limits), 5xx (Anthropic 529 included),
//   connection failures, timeouts, stalls, truncated bodies and streams,
//   retryable error events mid-stream, and (a bounded number of times) 2xx
//   bodies that are not the expected JSON;
// - never retried: 401/403 (auth), quota and billing (OpenAI
//   insufficient_quota / billing_*, Anthropic billing_error, 402, spend
//   limits), 400/404/413/422 and other 4xx, redirects, unverifiable TLS.
#include <ctime>
#include <map>
#include <optional>
#include <string>

#include "autoresearch/llm/llm_client.h"
#include "protocol.h"

namespace ar {

struct Failure {
  bool retryable = false;
  LlmErrorKind kind = LlmErrorKind::unavailable;  // what to throw if this is the last word
  bool bad_response = false;  // counts against max_bad_response_attempts
  std::string message;        // a complete sentence, redacted
  int http_status = 0;
  std::string provider_type, provider_code;
  std::optional<double> retry_after_s;  // what the server asked for, uncapped
};

struct ErrorContext {
  const LlmSettings& settings;
  const ApiKey& key;
  std::string url;  // as it may appear in messages (no query, no credentials)
};

Failure classify_http_error(const ErrorContext& ctx, int status, const ProviderError& error,
                            const std::map<std::string, std::string>& headers, std::time_t now);
Failure classify_stream_error(const ErrorContext& ctx, const ProviderError& error);
Failure classify_transport_error(const ErrorContext& ctx, const HttpResponse& response);

// retry-after-ms (milliseconds), else retry-after (seconds, or an HTTP date
// relative to `now`). Never negative; nullopt when absent or unreadable.
std::optional<double> parse_retry_after(const std::map<std::string, std::string>& headers,
                                        std::time_t now);

// Exponential backoff with full jitter: uniform in [0, min(max, initial * 2^(failures-1))).
// `unit_random` is a draw from [0, 1).
double backoff_delay(int failures, double initial_s, double max_s, double unit_random);

// The URL without its query string and credentials, for messages.
std::string url_for_messages(const std::string& url);

}  // namespace ar
