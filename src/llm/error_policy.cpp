#include "error_policy.h"

#include <curl/curl.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace ar {
namespace {

constexpr size_t kMaxQuoted = 400;  // provider messages quoted in ours

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool contains(const std::string& haystack, const char* needle) {
  return lower(haystack).find(needle) != std::string::npos;
}

// "; the provider said: ..." with the provider's words redacted and bounded.
std::string quote(const ErrorContext& ctx, const ProviderError& e) {
  std::string said = e.message;
  if (said.empty()) said = e.type.empty() ? e.code : e.type;
  if (said.empty()) return "";
  said = redact_secrets(said, ctx.key.value);
  if (said.size() > kMaxQuoted) said = said.substr(0, kMaxQuoted) + "...";
  return "; the provider said: " + said;
}

// "429 insufficient_quota" / "529 overloaded_error" / "500".
std::string status_label(int status, const ProviderError& e) {
  std::string label = std::to_string(status);
  if (!e.code.empty()) label += " " + e.code;
  else if (!e.type.empty()) label += " " + e.type;
  return label;
}

bool is_quota(int status, const ProviderError& e) {
  static const char* const kQuotaWords[] = {
      "insufficient_quota", "billing_hard_limit_reached", "billing_not_active",
      "billing_error", "enforced_spend_limit_reached", "payment_required"};
  for (const char* word : kQuotaWords) {
    if (e.type == word || e.code == word) return true;
  }
  if (status == 402) return true;
  // Anthropic answers an empty prepaid balance with a 400 invalid_request_error.
  if (status >= 400 && status < 500 &&
      (contains(e.message, "credit balance is too low") ||
       contains(e.message, "exceeded your current quota"))) {
    return true;
  }
  return false;
}

bool is_context_too_long(const ProviderError& e) {
  return e.code == "context_length_exceeded" || contains(e.message, "prompt is too long") ||
         contains(e.message, "maximum context length") || contains(e.message, "context window");
}

Failure fatal(LlmErrorKind kind, std::string message, int status, const ProviderError& e) {
  Failure f;
  f.retryable = false;
  f.kind = kind;
  f.message = std::move(message);
  f.http_status = status;
  f.provider_type = e.type;
  f.provider_code = e.code;
  return f;
}

Failure transient(std::string message, int status, const ProviderError& e) {
  Failure f = fatal(LlmErrorKind::unavailable, std::move(message), status, e);
  f.retryable = true;
  return f;
}

Failure auth_failure(const ErrorContext& ctx, int status, const ProviderError& e) {
  LlmProvider provider = ctx.settings.provider;
  if (status == 403) {
    return fatal(LlmErrorKind::auth,
                 fmt::format("the API key is not allowed to use model '{}' at {} (403, {}): check the "
                             "key's permissions, or choose another --llm-model{}",
                             ctx.settings.model, ctx.url, ctx.key.describe(), quote(ctx, e)),
                 status, e);
  }
  if (ctx.key.empty()) {
    return fatal(LlmErrorKind::auth,
                 fmt::format("{} requires an API key ({}): set {}{}", ctx.url, status_label(status, e),
                             api_key_variables(provider), quote(ctx, e)),
                 status, e);
  }
  return fatal(LlmErrorKind::auth,
               fmt::format("the API key was rejected ({} from {}, {}): set {} to a valid key{}",
                           status_label(status, e), ctx.url, ctx.key.describe(),
                           api_key_variables(provider), quote(ctx, e)),
               status, e);
}

Failure quota_failure(const ErrorContext& ctx, int status, const ProviderError& e) {
  return fatal(LlmErrorKind::quota,
               fmt::format("quota exhausted at {} ({}): add credit at the provider or choose another "
                           "--llm-model/--llm-base-url{}",
                           ctx.url, status_label(status, e), quote(ctx, e)),
               status, e);
}

Failure request_failure(const ErrorContext& ctx, int status, const ProviderError& e) {
  const std::string& model = ctx.settings.model;
  if (status == 404 || e.type == "not_found_error" || e.code == "model_not_found") {
    return fatal(LlmErrorKind::bad_request,
                 fmt::format("model or endpoint not found ({} from {}): check --llm-model '{}' and "
                             "--llm-base-url{}",
                             status_label(status, e), ctx.url, model, quote(ctx, e)),
                 status, e);
  }
  if (status == 413 || e.type == "request_too_large") {
    return fatal(LlmErrorKind::bad_request,
                 fmt::format("the request is larger than {} accepts ({}): send a smaller context{}",
                             ctx.url, status_label(status, e), quote(ctx, e)),
                 status, e);
  }
  if (is_context_too_long(e)) {
    return fatal(LlmErrorKind::bad_request,
                 fmt::format("the prompt is longer than model '{}' accepts ({}): send a smaller "
                             "context or choose a model with a longer context window{}",
                             model, status_label(status, e), quote(ctx, e)),
                 status, e);
  }
  return fatal(LlmErrorKind::bad_request,
               fmt::format("{} rejected the request ({}): check --llm-model '{}', "
                           "--llm-max-output-tokens and --llm-temperature{}",
                           ctx.url, status_label(status, e), model, quote(ctx, e)),
               status, e);
}

// The HTTP status an error type stands for, for errors that arrive in a
// stream (after a 200) or in a 200 body.
int status_of_type(const ProviderError& e) {
  static const std::map<std::string, int> kStatus = {
      {"invalid_request_error", 400}, {"authentication_error", 401}, {"billing_error", 402},
      {"permission_error", 403},      {"not_found_error", 404},      {"request_too_large", 413},
      {"rate_limit_error", 429},      {"insufficient_quota", 429},   {"api_error", 500},
      {"server_error", 500},          {"timeout_error", 504},        {"overloaded_error", 529}};
  if (auto it = kStatus.find(e.type); it != kStatus.end()) return it->second;
  if (auto it = kStatus.find(e.code); it != kStatus.end()) return it->second;
  return 0;
}

}  // namespace

std::string url_for_messages(const std::string& url) {
  std::string u = url.substr(0, url.find_first_of("?#"));
  size_t scheme = u.find("://");
  size_t host_start = scheme == std::string::npos ? 0 : scheme + 3;
  size_t path_start = u.find('/', host_start);
  size_t at = u.rfind('@', path_start == std::string::npos ? u.size() : path_start);
  if (at != std::string::npos && at >= host_start) u.erase(host_start, at + 1 - host_start);
  return u;
}

Failure classify_http_error(const ErrorContext& ctx, int status, const ProviderError& e,
                            const std::map<std::string, std::string>& headers, std::time_t now) {
  if (status >= 300 && status < 400) {
    auto location = headers.find("location");
    return fatal(LlmErrorKind::bad_request,
                 fmt::format("{} answered {} with a redirect{}: set --llm-base-url to the final URL "
                             "(redirects are not followed)",
                             ctx.url, status,
                             location == headers.end() ? "" : " to " + url_for_messages(location->second)),
                 status, e);
  }
  if (is_quota(status, e)) return quota_failure(ctx, status, e);
  if (status == 401 || status == 403 || e.type == "authentication_error" ||
      e.type == "permission_error") {
    return auth_failure(ctx, status == 403 || e.type == "permission_error" ? 403 : 401, e);
  }
  if (status == 408 || status == 409 || status == 429 || (status >= 500 && status < 600)) {
    Failure f = transient(fmt::format("HTTP {} from {}{}", status_label(status, e), ctx.url, quote(ctx, e)),
                          status, e);
    f.retry_after_s = parse_retry_after(headers, now);
    return f;
  }
  if (status >= 400 && status < 500) return request_failure(ctx, status, e);
  Failure f = transient(fmt::format("unexpected HTTP status {} from {}{}", status, ctx.url, quote(ctx, e)),
                        status, e);
  f.kind = LlmErrorKind::bad_response;
  f.bad_response = true;
  return f;
}

Failure classify_stream_error(const ErrorContext& ctx, const ProviderError& e) {
  int status = status_of_type(e);
  if (status != 0 && status != 429 && status < 500) {
    // A non-transient error type: the same verdict as the HTTP status it stands for.
    Failure f = classify_http_error(ctx, status, e, {}, 0);
    f.http_status = 0;
    return f;
  }
  if (is_quota(status, e)) return quota_failure(ctx, 0, e);
  std::string what = e.type.empty() ? (e.code.empty() ? std::string("error") : e.code) : e.type;
  return transient(fmt::format("the answer from {} ended with an error event ({}){}", ctx.url, what,
                               quote(ctx, e)),
                   0, e);
}

Failure classify_transport_error(const ErrorContext& ctx, const HttpResponse& r) {
  const ProviderError none;
  std::string detail = r.error_detail.empty() ? "" : " (" + redact_secrets(r.error_detail, ctx.key.value) + ")";
  switch (r.error) {
    case TransportError::connect:
      return transient(fmt::format("cannot connect to {}{}", ctx.url, detail), 0, none);
    case TransportError::tls:
      return transient(fmt::format("the TLS handshake with {} failed{}", ctx.url, detail), 0, none);
    case TransportError::tls_verify:
      return fatal(LlmErrorKind::bad_request,
                   fmt::format("the TLS certificate of {} did not verify against the system CAs{}: "
                               "check --llm-base-url or the system's CA certificates (verification "
                               "is never turned off)",
                               ctx.url, detail),
                   0, none);
    case TransportError::timeout:
      return transient(fmt::format("no complete answer from {} within {:g} s (the per-attempt timeout)",
                                   ctx.url, ctx.settings.total_timeout_s),
                       r.status, none);
    case TransportError::idle_timeout:
      return transient(fmt::format("the answer from {} stalled: no data for {:g} s", ctx.url,
                                   ctx.settings.idle_timeout_s),
                       r.status, none);
    case TransportError::incomplete:
      return transient(fmt::format("the connection to {} closed before the answer was complete{}",
                                   ctx.url, detail),
                       r.status, none);
    case TransportError::cancelled:
      return fatal(LlmErrorKind::cancelled, "the LLM call was cancelled", r.status, none);
    case TransportError::aborted:
    case TransportError::other:
    case TransportError::none:
      break;
  }
  return transient(fmt::format("the transfer from {} failed{}", ctx.url, detail), r.status, none);
}

std::optional<double> parse_retry_after(const std::map<std::string, std::string>& headers,
                                        std::time_t now) {
  auto number = [](const std::string& text) -> std::optional<double> {
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    while (end && *end == ' ') ++end;
    if (end == text.c_str() || (end && *end != '\0') || !std::isfinite(v)) return std::nullopt;
    return std::max(0.0, v);
  };
  if (auto ms = headers.find("retry-after-ms"); ms != headers.end()) {
    if (auto v = number(ms->second)) return *v / 1000.0;
  }
  auto it = headers.find("retry-after");
  if (it == headers.end()) return std::nullopt;
  if (auto v = number(it->second)) return v;
  std::time_t when = curl_getdate(it->second.c_str(), nullptr);  // "Wed, 21 Oct 2015 07:28:00 GMT"
  if (when == -1) return std::nullopt;
  return std::max(0.0, std::difftime(when, now));
}

double backoff_delay(int failures, double initial_s, double max_s, double unit_random) {
  double ceiling = initial_s * std::pow(2.0, std::max(0, failures - 1));
  return std::min(max_s, ceiling) * std::clamp(unit_random, 0.0, 1.0);
}

}  // namespace ar
