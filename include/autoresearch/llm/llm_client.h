#pragma once
// The LLM client: one call, "here is a system prompt and a conversation, give
// me the answer text", over OpenAI-compatible /chat/completions or Anthropic
// /v1/messages, with streaming, timeouts, retries, token usage and cost.
//
// Design: why the seams are where they are.
// - LlmClient is the seam the agent sees. The agent (prompts, edit parsing,
//   the loop) tests against its own fake LlmClient; it never sees HTTP, SSE,
//   provider JSON or retry timing.
// - HttpTransport (http_transport.h) is the seam below the client: everything
//   that is the client's own logic — building requests, parsing both SSE
//   dialects, classifying errors, retry and backoff, cost — tests against a
//   scripted transport, byte by byte, without a network. The real libcurl
//   transport is thin and tests against the loopback fake server
//   (tests/support/fake_llm_server), whose payloads follow the providers' docs.
// - Sleeper is injected so retry tests record the waits instead of sleeping,
//   and so Ctrl-C interrupts a backoff as it interrupts a transfer.
// - Errors are one exception type with a kind (LlmError), thrown only by
//   LlmClient::complete: the agent catches it once, and the kind says whether
//   the run must stop (a key, quota or request to fix: exit 4 with the
//   message), or the endpoint was unavailable (an infrastructure failure), or
//   the call was cancelled. Transport failures below it are values.
// - Secrets: the key lives in ApiKey and goes only into the auth header; every
//   provider message quoted in an error passes through redact_secrets().
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "autoresearch/llm/api_key.h"
#include "autoresearch/llm/http_transport.h"
#include "autoresearch/llm/prices.h"

namespace ar {

enum class LlmProvider { openai, anthropic };
std::string_view to_string(LlmProvider provider);
std::optional<LlmProvider> parse_llm_provider(std::string_view text);  // "openai", "anthropic"

// How the output-token limit is spelled in an OpenAI-compatible request.
// automatic: max_completion_tokens for api.openai.com models of the o1/o3/o4
// and gpt-5 families (which reject max_tokens), max_tokens everywhere else.
enum class MaxTokensField { automatic, max_tokens, max_completion_tokens };
std::string_view to_string(MaxTokensField field);  // "auto", "max_tokens", "max_completion_tokens"
std::optional<MaxTokensField> parse_max_tokens_field(std::string_view text);

struct LlmSettings {
  LlmProvider provider = LlmProvider::openai;
  std::string base_url;             // empty: the provider's public URL (default_base_url)
  std::string model;                // required
  std::optional<double> temperature;  // unset: left out of the request
  int max_output_tokens = 8192;
  MaxTokensField max_tokens_field = MaxTokensField::automatic;
  bool stream = true;               // SSE: a dead stream is caught by the idle timeout early
  double connect_timeout_s = 10;
  double total_timeout_s = 600;     // per attempt, streamed or not
  double idle_timeout_s = 120;      // streaming: no byte for this long ends the attempt
  int max_attempts = 6;             // all attempts of one call, the first included
  int max_bad_response_attempts = 3;  // a 200 whose body is not the expected JSON
  double backoff_initial_s = 1;
  double backoff_max_s = 60;        // also caps a retry-after the server asks for
  std::string anthropic_version = "2023-06-01";
  // Whether the endpoint bills: unset, judged from its host (is_paid_endpoint).
  // A proxy on a private address that forwards to a paid API (LiteLLM, a
  // gateway) is set true, so its calls are priced and the cost budget binds.
  std::optional<bool> paid;
};

// settings.paid, else is_paid_endpoint(effective_base_url(settings)).
bool endpoint_bills(const LlmSettings& settings);

// "https://api.openai.com/v1" or "https://api.anthropic.com".
std::string default_base_url(LlmProvider provider);
// settings.base_url or the default, without a trailing '/'. For Anthropic a
// trailing "/v1" is dropped too, since the client appends "/v1/messages".
std::string effective_base_url(const LlmSettings& settings);
// The full URL of the answer endpoint, e.g. "https://api.openai.com/v1/chat/completions".
std::string completion_url(const LlmSettings& settings);
// The field the output-token limit is sent in, with `automatic` resolved.
std::string max_tokens_field_name(const LlmSettings& settings);
// Empty when usable; otherwise what is wrong, e.g. "the LLM model is not set: set --llm-model".
std::string validate_llm_settings(const LlmSettings& settings);
// Empty when the key is fine for this endpoint; otherwise what to set, e.g.
// "no API key for https://api.openai.com/v1: set AUTORESEARCH_LLM_API_KEY or
// OPENAI_API_KEY". Local endpoints need no key.
std::string missing_key_problem(const LlmSettings& settings, const ApiKey& key);

struct LlmMessage {
  std::string role;     // "user" or "assistant" (the system prompt is LlmRequest::system)
  std::string content;
};

struct LlmProgress {
  size_t answer_chars = 0;     // answer text received so far in this attempt
  size_t reasoning_chars = 0;  // thinking / reasoning text received (not part of the answer)
  int attempt = 1;
};

struct LlmRequest {
  std::string system;                 // may be empty
  std::vector<LlmMessage> messages;   // at least one; Anthropic wants user first, alternating
  std::optional<int> max_output_tokens;  // overrides the settings for this call
  const std::atomic<bool>* cancel = nullptr;  // polled during transfers and backoff
  // Called on the calling thread as streamed text arrives (e.g. for a status
  // line). A retry starts again from zero.
  std::function<void(const LlmProgress&)> on_progress;
};

struct LlmUsage {
  int64_t input_tokens = 0;         // all input tokens, cached ones included
  int64_t output_tokens = 0;        // all output tokens, reasoning/thinking included
  int64_t cached_input_tokens = 0;  // input read from the provider's prompt cache
  int64_t cache_write_tokens = 0;   // input written to the prompt cache (Anthropic)
  std::optional<int64_t> reasoning_tokens;  // where the provider reports them (OpenAI)
  // The endpoint reported no usage: the counts are estimated from the text
  // (about 3 characters a token, on the high side so budgets bind).
  bool estimated = false;
};

struct LlmResponse {
  std::string text;            // the answer: content / text blocks only, thinking excluded
  // "stop", "length" (OpenAI length, Anthropic max_tokens), "refusal",
  // "content_filter", or "other:<raw>" (e.g. "other:tool_use").
  std::string finish_reason;
  std::string raw_finish_reason;  // as the provider spelled it
  bool truncated = false;      // finish_reason == "length": the answer was cut off
  LlmUsage usage;
  size_t reasoning_chars = 0;  // thinking / reasoning text seen and left out of `text`
  double latency_s = 0;        // the whole call, retries and waits included
  double last_attempt_s = 0;   // the attempt that answered
  int attempts = 1;
  std::string model;           // as the endpoint reported it (else the requested one)
  std::string request_id;      // x-request-id / request-id header, when present
  double cost_usd = 0;
  bool cost_estimated = false;
  std::string cost_basis;
};

enum class LlmErrorKind {
  auth,          // 401/403, authentication_error, permission_error: fix the key
  quota,         // insufficient_quota, billing: add credit or pick another endpoint
  bad_request,   // 400/404/413/422, a redirect, an unverifiable certificate: fix a setting
  unavailable,   // transient failures until the attempts ran out: infrastructure
  bad_response,  // 2xx answers that were not the expected JSON, every time
  cancelled,     // the cancel flag was set
};
std::string_view to_string(LlmErrorKind kind);

// The one exception LlmClient::complete throws. what() is a complete sentence
// saying what happened and, for the kinds that stop a run, what to fix. It may
// quote the provider's message, redacted; it never contains the key.
class LlmError : public std::runtime_error {
 public:
  LlmError(LlmErrorKind kind, const std::string& message, int http_status = 0,
           std::string provider_type = "", std::string provider_code = "", int attempts = 0)
      : std::runtime_error(message), kind_(kind), http_status_(http_status),
        provider_type_(std::move(provider_type)), provider_code_(std::move(provider_code)),
        attempts_(attempts) {}

  LlmErrorKind kind() const { return kind_; }
  // auth, quota, bad_request: retrying cannot help; the run stops with exit 4
  // and what() as the message.
  bool stops_run() const {
    return kind_ == LlmErrorKind::auth || kind_ == LlmErrorKind::quota ||
           kind_ == LlmErrorKind::bad_request;
  }
  int http_status() const { return http_status_; }              // 0: none
  const std::string& provider_type() const { return provider_type_; }  // e.g. "invalid_request_error"
  const std::string& provider_code() const { return provider_code_; }  // e.g. "context_length_exceeded"
  int attempts() const { return attempts_; }

 private:
  LlmErrorKind kind_;
  int http_status_;
  std::string provider_type_, provider_code_;
  int attempts_;
};

// Waits between attempts. Returns false when cancelled before the time was up.
class Sleeper {
 public:
  virtual ~Sleeper() = default;
  virtual bool sleep_for(double seconds, const std::atomic<bool>* cancel) = 0;
};
std::shared_ptr<Sleeper> make_real_sleeper();  // polls the cancel flag every 50 ms

class LlmClient {
 public:
  virtual ~LlmClient() = default;
  // One answer, with retries. Throws LlmError (and nothing else for endpoint
  // trouble). Safe to call again after an error.
  virtual LlmResponse complete(const LlmRequest& request) = 0;
  virtual const LlmSettings& settings() const = 0;
};

struct LlmClientDeps {
  std::shared_ptr<HttpTransport> transport;  // null: make_curl_transport()
  std::shared_ptr<Sleeper> sleeper;          // null: make_real_sleeper()
  uint64_t jitter_seed = 0;                  // 0: from std::random_device
};

// Throws ar::Fatal(kExitUsage) when validate_llm_settings() finds a problem;
// `prices` is required (std::invalid_argument when null): every answer is priced.
// The key is not checked here (see missing_key_problem); an empty key sends no
// auth header.
std::unique_ptr<LlmClient> make_llm_client(const LlmSettings& settings, ApiKey key,
                                           std::shared_ptr<const PriceTable> prices,
                                           LlmClientDeps deps = {});

struct ProbeResult {
  bool ok = false;
  int http_status = 0;
  bool model_listed = false;
  std::string message;  // one line, e.g. "https://api.openai.com/v1/models: 200, 93 models, gpt-4.1 listed"
};

// A cheap check for `doctor`: GET {base_url}/models (OpenAI-compatible) or
// {base_url}/v1/models (Anthropic) with the auth headers, short timeouts, one
// attempt. Never throws for endpoint trouble; never puts the key in the message.
ProbeResult probe_endpoint(const LlmSettings& settings, const ApiKey& key,
                           std::shared_ptr<HttpTransport> transport = nullptr);

// "openai https://api.openai.com/v1 gpt-4.1 (key from OPENAI_API_KEY)" — for
// the run header and doctor.
std::string describe_endpoint(const LlmSettings& settings, const ApiKey& key);

}  // namespace ar
