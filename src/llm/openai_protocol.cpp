// OpenAI-compatible chat completions (OpenAI, vLLM, llama.cpp, Ollama,
// OpenRouter, LiteLLM): POST {base}/chat/completions, Bearer auth, the system
// prompt as the first message; streamed as "data: {chunk}" events ending with
// "data: [DONE]", usage on a last chunk with empty choices when
// stream_options.include_usage is set.
#include "protocol.h"

namespace ar {
namespace {

void read_usage(const nlohmann::json& usage, DecodedAnswer& a) {
  if (!usage.is_object()) return;  // "usage": null on every chunk but the last
  a.usage_seen = true;
  a.usage.input_tokens = json_int(usage, "prompt_tokens");
  a.usage.output_tokens = json_int(usage, "completion_tokens");
  if (auto details = usage.find("prompt_tokens_details"); details != usage.end()) {
    a.usage.cached_input_tokens = json_int(*details, "cached_tokens");
  }
  if (auto details = usage.find("completion_tokens_details"); details != usage.end()) {
    if (details->is_object() && details->contains("reasoning_tokens")) {
      a.usage.reasoning_tokens = json_int(*details, "reasoning_tokens");
    }
  }
}

// Reasoning text goes by two names: reasoning_content (DeepSeek, vLLM,
// llama.cpp) and reasoning (OpenRouter, Ollama). Counted, never answered.
size_t reasoning_size(const nlohmann::json& message_or_delta) {
  return json_string(message_or_delta, "reasoning_content").size() +
         json_string(message_or_delta, "reasoning").size();
}

const nlohmann::json* first_choice(const nlohmann::json& j) {
  auto choices = j.find("choices");
  if (choices == j.end() || !choices->is_array() || choices->empty()) return nullptr;
  // With n = 1 there is one choice; pick index 0 where servers number them.
  for (const auto& choice : *choices) {
    if (choice.is_object() && json_int(choice, "index") == 0) return &choice;
  }
  return &choices->front();
}

class OpenAiStreamDecoder : public StreamDecoder {
 public:
  void on_event(const SseEvent& event) override {
    if (event.data == "[DONE]") {
      answer_.complete = true;
      return;
    }
    bool parsed = for_each_json_payload(event.data, [&](const nlohmann::json& chunk) { take(chunk); });
    if (!parsed && answer_.malformed.empty()) {
      answer_.malformed = "a stream event was not JSON: " + event.data.substr(0, 120);
    }
  }

 private:
  void take(const nlohmann::json& chunk) {
    if (!chunk.is_object()) return;
    if (auto error = chunk.find("error"); error != chunk.end() && !error->is_null()) {
      answer_.stream_error = provider_error_from(*error);
      return;
    }
    if (answer_.model.empty()) answer_.model = json_string(chunk, "model");
    if (const nlohmann::json* choice = first_choice(chunk)) {
      if (auto delta = choice->find("delta"); delta != choice->end() && delta->is_object()) {
        answer_.text += json_string(*delta, "content");
        answer_.reasoning_chars += reasoning_size(*delta);
        if (!json_string(*delta, "refusal").empty()) answer_.refusal = true;
      }
      if (std::string finish = json_string(*choice, "finish_reason"); !finish.empty()) {
        answer_.raw_finish = finish;
      }
    }
    if (auto usage = chunk.find("usage"); usage != chunk.end()) read_usage(*usage, answer_);
  }
};

// The families whose api.openai.com models reject max_tokens.
bool needs_max_completion_tokens(const std::string& model) {
  auto family = [&](const std::string& prefix) {
    return model.rfind(prefix, 0) == 0 &&
           (model.size() == prefix.size() || model[prefix.size()] == '-');
  };
  return family("o1") || family("o3") || family("o4") || model.rfind("gpt-5", 0) == 0;
}

class OpenAiProtocol : public Protocol {
 public:
  HttpRequest build(const LlmSettings& settings, const LlmRequest& request,
                    const ApiKey& key) const override {
    nlohmann::json messages = nlohmann::json::array();
    if (!request.system.empty()) {
      messages.push_back({{"role", "system"}, {"content", request.system}});
    }
    for (const auto& m : request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
    nlohmann::json body = {{"model", settings.model}, {"messages", messages}};
    body[max_tokens_field_name(settings)] = request.max_output_tokens.value_or(settings.max_output_tokens);
    if (settings.temperature) body["temperature"] = *settings.temperature;
    if (settings.stream) {
      body["stream"] = true;
      body["stream_options"] = {{"include_usage", true}};
    }
    HttpRequest http;
    http.method = "POST";
    http.url = completion_url(settings);
    http.headers = {{"Content-Type", "application/json"},
                    {"Accept", settings.stream ? "text/event-stream" : "application/json"}};
    if (!key.empty()) http.headers.emplace_back("Authorization", "Bearer " + key.value);
    http.body = body.dump();
    return http;
  }

  HttpRequest build_models_probe(const LlmSettings& settings, const ApiKey& key) const override {
    HttpRequest http;
    http.method = "GET";
    http.url = effective_base_url(settings) + "/models";
    http.headers = {{"Accept", "application/json"}};
    if (!key.empty()) http.headers.emplace_back("Authorization", "Bearer " + key.value);
    return http;
  }

  std::unique_ptr<StreamDecoder> stream_decoder() const override {
    return std::make_unique<OpenAiStreamDecoder>();
  }

  DecodedAnswer parse_body(const std::string& body) const override {
    nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw BadBody("the body is not JSON");
    DecodedAnswer a;
    if (auto error = j.find("error"); error != j.end() && !error->is_null()) {
      a.stream_error = provider_error_from(*error);
      return a;
    }
    const nlohmann::json* choice = first_choice(j);
    if (!choice || !choice->is_object()) throw BadBody("the JSON has no choices[0]");
    auto message = choice->find("message");
    if (message == choice->end() || !message->is_object()) {
      throw BadBody("the JSON has no choices[0].message");
    }
    // content: a string, null (refusal or tool calls), or an array of parts.
    if (auto content = message->find("content"); content != message->end()) {
      if (content->is_string()) {
        a.text = content->get<std::string>();
      } else if (content->is_array()) {
        for (const auto& part : *content) {
          std::string type = json_string(part, "type");
          if (type == "text" || type == "output_text") a.text += json_string(part, "text");
          if (type == "refusal") a.refusal = true;
        }
      } else if (!content->is_null()) {
        throw BadBody("choices[0].message.content is neither a string nor an array");
      }
    }
    if (!json_string(*message, "refusal").empty()) a.refusal = true;
    a.reasoning_chars = reasoning_size(*message);
    a.raw_finish = json_string(*choice, "finish_reason");
    a.model = json_string(j, "model");
    if (auto usage = j.find("usage"); usage != j.end()) read_usage(*usage, a);
    a.complete = true;
    return a;
  }

  ProviderError parse_error(const std::string& body) const override { return parse_error_body(body); }

  std::string normalise_finish(const DecodedAnswer& a) const override {
    const std::string& raw = a.raw_finish;
    if (a.refusal && a.text.empty()) return "refusal";
    if (raw == "stop" || raw == "length" || raw == "content_filter") return raw;
    return "other:" + (raw.empty() ? std::string("none") : raw);
  }
};

}  // namespace

std::unique_ptr<Protocol> make_openai_protocol() { return std::make_unique<OpenAiProtocol>(); }

bool openai_model_needs_max_completion_tokens(const std::string& model) {
  return needs_max_completion_tokens(model);
}

}  // namespace ar
