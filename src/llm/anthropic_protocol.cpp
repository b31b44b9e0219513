// Anthropic Messages: POST {base}/v1/messages with x-api-key and
// anthropic-version, a top-level system prompt and a required max_tokens.
// Streamed as named events: message_start, then per content block
// content_block_start / content_block_delta... / content_block_stop, then
// message_delta (stop_reason, cumulative usage) and message_stop; ping events
// anywhere, and an error event (e.g. overloaded_error) that ends the stream.
#include <map>

#include "protocol.h"

namespace ar {
namespace {

// Anthropic counts input in three parts; LlmUsage holds the total and the
// cached parts, as OpenAI does.
void read_usage(const nlohmann::json& usage, DecodedAnswer& a, bool cumulative_update) {
  if (!usage.is_object()) return;
  a.usage_seen = true;
  auto has = [&](const char* key) { return usage.contains(key) && usage[key].is_number(); };
  if (!cumulative_update || has("input_tokens") || has("cache_read_input_tokens") ||
      has("cache_creation_input_tokens")) {
    int64_t uncached = json_int(usage, "input_tokens");
    int64_t read = json_int(usage, "cache_read_input_tokens");
    int64_t written = json_int(usage, "cache_creation_input_tokens");
    // message_delta repeats the input counts only in newer API versions;
    // never let a partial repeat lower what message_start said.
    if (!cumulative_update || uncached + read + written >= a.usage.input_tokens) {
      a.usage.input_tokens = uncached + read + written;
      a.usage.cached_input_tokens = read;
      a.usage.cache_write_tokens = written;
    }
  }
  if (has("output_tokens")) a.usage.output_tokens = json_int(usage, "output_tokens");
}

class AnthropicStreamDecoder : public StreamDecoder {
 public:
  void on_event(const SseEvent& event) override {
    bool parsed = for_each_json_payload(event.data, [&](const nlohmann::json& j) { take(event, j); });
    if (!parsed && answer_.malformed.empty()) {
      answer_.malformed = "a stream event was not JSON: " + event.data.substr(0, 120);
    }
  }

 private:
  void take(const SseEvent& event, const nlohmann::json& j) {
    std::string type = json_string(j, "type");
    if (type.empty()) type = event.event;
    if (type == "message_start") {
      const auto& message = j.contains("message") ? j["message"] : nlohmann::json();
      answer_.model = json_string(message, "model");
      if (message.is_object() && message.contains("usage")) read_usage(message["usage"], answer_, false);
    } else if (type == "content_block_start") {
      const auto& block = j.contains("content_block") ? j["content_block"] : nlohmann::json();
      std::string block_type = json_string(block, "type");
      block_types_[json_int(j, "index")] = block_type;
      // The docs show blocks starting empty; take any text they start with.
      if (block_type == "text") answer_.text += json_string(block, "text");
      if (block_type == "thinking") answer_.reasoning_chars += json_string(block, "thinking").size();
    } else if (type == "content_block_delta") {
      const auto& delta = j.contains("delta") ? j["delta"] : nlohmann::json();
      std::string delta_type = json_string(delta, "type");
      auto block = block_types_.find(json_int(j, "index"));
      bool in_text_block = block == block_types_.end() || block->second == "text";
      if (delta_type == "text_delta" && in_text_block) answer_.text += json_string(delta, "text");
      if (delta_type == "thinking_delta") answer_.reasoning_chars += json_string(delta, "thinking").size();
      // signature_delta, input_json_delta, citations_delta: not answer text.
    } else if (type == "message_delta") {
      if (j.contains("delta")) {
        std::string stop = json_string(j["delta"], "stop_reason");
        if (!stop.empty()) answer_.raw_finish = stop;
      }
      if (j.contains("usage")) read_usage(j["usage"], answer_, true);
    } else if (type == "message_stop") {
      answer_.complete = true;
    } else if (type == "error") {
      answer_.stream_error = provider_error_from(j.contains("error") ? j["error"] : nlohmann::json());
      answer_.stream_error.present = true;
    }
    // ping, content_block_stop and event types added later: nothing to take.
  }

  std::map<int64_t, std::string> block_types_;
};

class AnthropicProtocol : public Protocol {
 public:
  HttpRequest build(const LlmSettings& settings, const LlmRequest& request,
                    const ApiKey& key) const override {
    nlohmann::json messages = nlohmann::json::array();
    for (const auto& m : request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
    nlohmann::json body = {
        {"model", settings.model},
        {"max_tokens", request.max_output_tokens.value_or(settings.max_output_tokens)},
        {"messages", messages}};
    if (!request.system.empty()) body["system"] = request.system;
    if (settings.temperature) body["temperature"] = *settings.temperature;
    if (settings.stream) body["stream"] = true;
    HttpRequest http;
    http.method = "POST";
    http.url = completion_url(settings);
    http.headers = headers(settings, key);
    http.headers.emplace_back("content-type", "application/json");
    http.headers.emplace_back("accept", settings.stream ? "text/event-stream" : "application/json");
    http.body = body.dump();
    return http;
  }

  HttpRequest build_models_probe(const LlmSettings& settings, const ApiKey& key) const override {
    HttpRequest http;
    http.method = "GET";
    http.url = effective_base_url(settings) + "/v1/models?limit=1000";  // the list is paged
    http.headers = headers(settings, key);
    http.headers.emplace_back("accept", "application/json");
    return http;
  }

  std::unique_ptr<StreamDecoder> stream_decoder() const override {
    return std::make_unique<AnthropicStreamDecoder>();
  }

  DecodedAnswer parse_body(const std::string& body) const override {
    nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw BadBody("the body is not JSON");
    DecodedAnswer a;
    if (json_string(j, "type") == "error" || (j.contains("error") && !j["error"].is_null())) {
      a.stream_error = provider_error_from(j.contains("error") ? j["error"] : nlohmann::json());
      a.stream_error.present = true;
      return a;
    }
    auto content = j.find("content");
    if (content == j.end() || !content->is_array()) throw BadBody("the JSON has no content array");
    for (const auto& block : *content) {
      std::string type = json_string(block, "type");
      if (type == "text") a.text += json_string(block, "text");
      if (type == "thinking") a.reasoning_chars += json_string(block, "thinking").size();
    }
    a.raw_finish = json_string(j, "stop_reason");
    a.model = json_string(j, "model");
    if (j.contains("usage")) read_usage(j["usage"], a, false);
    a.complete = true;
    return a;
  }

  ProviderError parse_error(const std::string& body) const override { return parse_error_body(body); }

  std::string normalise_finish(const DecodedAnswer& a) const override {
    const std::string& raw = a.raw_finish;
    if (raw == "end_turn" || raw == "stop_sequence") return "stop";
    if (raw == "max_tokens" || raw == "model_context_window_exceeded") return "length";
    if (raw == "refusal") return "refusal";
    return "other:" + (raw.empty() ? std::string("none") : raw);
  }

 private:
  static std::vector<std::pair<std::string, std::string>> headers(const LlmSettings& settings,
                                                                  const ApiKey& key) {
    std::vector<std::pair<std::string, std::string>> h;
    if (!key.empty()) h.emplace_back("x-api-key", key.value);
    h.emplace_back("anthropic-version", settings.anthropic_version);
    return h;
  }
};

}  // namespace

std::unique_ptr<Protocol> make_anthropic_protocol() { return std::make_unique<AnthropicProtocol>(); }

}  // namespace ar
