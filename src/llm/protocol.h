#pragma once
// What differs between the two provider dialects, behind one interface: how a
// request is spelled, how a streamed or whole answer is read, how an error body
// is read, and how a finish reason is normalised. The client's retry loop
// (llm_client.cpp) is the same for both.
#include <memory>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "autoresearch/llm/llm_client.h"
#include "sse_parser.h"

namespace ar {

// An error as the provider reported it, in an HTTP error body or mid-stream.
struct ProviderError {
  bool present = false;
  std::string type;     // OpenAI error.type, Anthropic error.type
  std::string code;     // OpenAI error.code; Anthropic error.details.error_code
  std::string message;  // not yet redacted
};

// An answer as far as it was read.
struct DecodedAnswer {
  std::string text;
  size_t reasoning_chars = 0;
  std::string raw_finish;       // empty: none seen
  bool refusal = false;         // OpenAI: a refusal came instead of content
  bool usage_seen = false;
  LlmUsage usage;
  std::string model;
  bool complete = false;        // [DONE] / message_stop seen, or the whole JSON parsed
  ProviderError stream_error;   // an error event in the stream
  std::string malformed;        // non-empty: why a payload was not what the protocol says
};

// A 2xx body that is not the provider's JSON.
class BadBody : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class StreamDecoder {
 public:
  virtual ~StreamDecoder() = default;
  virtual void on_event(const SseEvent& event) = 0;
  const DecodedAnswer& answer() const { return answer_; }

 protected:
  DecodedAnswer answer_;
};

class Protocol {
 public:
  virtual ~Protocol() = default;
  // URL, headers and body; the client adds timeouts, cancel and the body callback.
  virtual HttpRequest build(const LlmSettings& settings, const LlmRequest& request,
                            const ApiKey& key) const = 0;
  // The model-list request of probe_endpoint.
  virtual HttpRequest build_models_probe(const LlmSettings& settings, const ApiKey& key) const = 0;
  virtual std::unique_ptr<StreamDecoder> stream_decoder() const = 0;
  virtual DecodedAnswer parse_body(const std::string& body) const = 0;  // throws BadBody
  // Never throws: an unreadable body gives present == false.
  virtual ProviderError parse_error(const std::string& body) const = 0;
  virtual std::string normalise_finish(const DecodedAnswer& answer) const = 0;
};

std::unique_ptr<Protocol> make_protocol(LlmProvider provider);
std::unique_ptr<Protocol> make_openai_protocol();
std::unique_ptr<Protocol> make_anthropic_protocol();
// o1, o3, o4 (and their -mini etc.) and gpt-5*: OpenAI's reasoning families.
bool openai_model_needs_max_completion_tokens(const std::string& model);

// Helpers shared by the two dialects.
// Calls `fn` with each JSON value in an SSE data payload: normally one; when a
// server put several "data:" lines in one event, each line on its own.
// Returns false (and calls nothing) when a payload is not JSON.
bool for_each_json_payload(const std::string& data, const std::function<void(const nlohmann::json&)>& fn);
// Reads {"error": {...}} (both providers, and OpenAI-style proxies), a bare
// {"error": "text"}, or a FastAPI-style {"message": ..., "type": ...}.
ProviderError parse_error_body(const std::string& body);
ProviderError provider_error_from(const nlohmann::json& error_object);
int64_t json_int(const nlohmann::json& object, const char* key);  // 0 when absent / not a number
std::string json_string(const nlohmann::json& object, const char* key);  // "" when absent / not a string

}  // namespace ar
