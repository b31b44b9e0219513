// Shapes follow the providers' API references and streaming guides:
// - OpenAI: chat.completion with choices[0].message and usage (prompt_tokens,
//   completion_tokens, prompt_tokens_details.cached_tokens,
//   completion_tokens_details.reasoning_tokens); streamed chat.completion.chunk
//   objects, the first delta carrying the role, a last choice chunk with
//   finish_reason and an empty delta, then (stream_options.include_usage) a
//   chunk with "choices": [] and the usage (earlier chunks carry "usage": null),
//   then "data: [DONE]". Errors: {"error": {message, type, param, code}}.
// - Anthropic: message with content blocks, stop_reason and usage
//   (input_tokens, cache_creation_input_tokens, cache_read_input_tokens,
//   output_tokens); streamed as message_start, per block content_block_start /
//   content_block_delta (text_delta, thinking_delta, signature_delta) /
//   content_block_stop, ping, message_delta (stop_reason, cumulative
//   output_tokens), message_stop; an error event ends a stream. Errors:
//   {"type": "error", "error": {type, message}, "request_id"}.
#include "fake_llm_payloads.h"

#include <algorithm>
#include <ctime>

namespace fake_llm {
namespace {

using nlohmann::json;

constexpr size_t kPiece = 12;  // text is streamed in pieces this long, as models stream tokens

std::string str(const json& j, const char* key, const std::string& fallback = "") {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// The answer as blocks: "blocks" as given, or one text block from "text".
json blocks_of(const json& response) {
  if (response.contains("blocks")) return response["blocks"];
  return json::array({{{"type", "text"}, {"text", str(response, "text")}}});
}

std::string block_text(const json& block) {
  std::string type = str(block, "type");
  return type == "thinking" ? str(block, "thinking") : str(block, "text");
}

std::string joined(const json& blocks, const std::string& type) {
  std::string out;
  for (const auto& b : blocks) {
    if (str(b, "type") == type) out += block_text(b);
  }
  return out;
}

struct Usage {
  long long input = 0, output = 0, cached = 0, reasoning = 0;
};

Usage usage_of(const json& response, const json& request, const json& blocks) {
  Usage u;
  size_t chars = 0;
  for (const auto& b : blocks) chars += block_text(b).size();
  u.input = static_cast<long long>(request.is_null() ? 10 : request.dump().size() / 4 + 1);
  u.output = static_cast<long long>(chars / 4 + 1);
  u.reasoning = static_cast<long long>(joined(blocks, "thinking").size() / 4);
  if (auto given = response.find("usage"); given != response.end()) {
    u.input = given->value("input", u.input);
    u.output = given->value("output", u.output);
    u.cached = given->value("cached", 0LL);
    u.reasoning = std::min(u.reasoning, u.output);
  }
  return u;
}

std::string finish_for(Api api, const json& response) {
  std::string finish = str(response, "finish", "stop");
  if (api == Api::anthropic) {
    if (finish == "stop") return "end_turn";
    if (finish == "length") return "max_tokens";
  }
  return finish;  // other spellings pass through (content_filter, refusal, tool_use, ...)
}

std::string model_of(const json& response, const json& request) {
  return str(response, "model", request.is_object() ? str(request, "model", "fake-model") : "fake-model");
}

std::vector<std::string> pieces(const std::string& text) {
  std::vector<std::string> out;
  for (size_t at = 0; at < text.size(); at += kPiece) out.push_back(text.substr(at, kPiece));
  return out;
}

// ---- OpenAI ----------------------------------------------------------------

json openai_usage(const Usage& u) {
  return {{"prompt_tokens", u.input},
          {"completion_tokens", u.output},
          {"total_tokens", u.input + u.output},
          {"prompt_tokens_details", {{"cached_tokens", u.cached}}},
          {"completion_tokens_details", {{"reasoning_tokens", u.reasoning}}}};
}

std::string openai_json(const json& response, const json& request, int serial) {
  json blocks = blocks_of(response);
  std::string text = joined(blocks, "text");
  json message = {{"role", "assistant"}, {"refusal", nullptr}};
  if (response.value("content_as_parts", false)) {
    json parts = json::array();
    for (const auto& b : blocks) {
      if (str(b, "type") == "text") parts.push_back({{"type", "text"}, {"text", str(b, "text")}});
    }
    message["content"] = parts;
  } else {
    message["content"] = text;
  }
  if (std::string thinking = joined(blocks, "thinking"); !thinking.empty()) message["reasoning_content"] = thinking;
  json body = {{"id", "chatcmpl-fake-" + std::to_string(serial)},
               {"object", "chat.completion"},
               {"created", static_cast<long long>(std::time(nullptr))},
               {"model", model_of(response, request)},
               {"choices", json::array({{{"index", 0},
                                         {"message", message},
                                         {"logprobs", nullptr},
                                         {"finish_reason", finish_for(Api::openai, response)}}})},
               {"usage", openai_usage(usage_of(response, request, blocks))},
               {"system_fingerprint", "fp_fake"}};
  return body.dump();
}

std::string openai_sse(const json& response, const json& request, int serial, const std::string& eol) {
  json blocks = blocks_of(response);
  bool include_usage = request.is_object() && request.contains("stream_options") &&
                       request["stream_options"].value("include_usage", false);
  json base = {{"id", "chatcmpl-fake-" + std::to_string(serial)},
               {"object", "chat.completion.chunk"},
               {"created", static_cast<long long>(std::time(nullptr))},
               {"model", model_of(response, request)},
               {"system_fingerprint", "fp_fake"}};
  if (include_usage) base["usage"] = nullptr;
  std::string out;
  auto event = [&](const json& payload) { out += "data: " + payload.dump() + eol + eol; };
  auto chunk = [&](const json& delta, const json& finish) {
    json c = base;
    c["choices"] = json::array({{{"index", 0}, {"delta", delta}, {"logprobs", nullptr}, {"finish_reason", finish}}});
    event(c);
  };
  chunk({{"role", "assistant"}, {"content", ""}}, nullptr);
  bool error_sent = false;
  for (const auto& b : blocks) {
    bool thinking = str(b, "type") == "thinking";
    for (const auto& p : pieces(block_text(b))) chunk({{thinking ? "reasoning_content" : "content", p}}, nullptr);
    if (response.contains("sse_error") && !error_sent) {
      const json& e = response["sse_error"];
      event({{"error", {{"message", str(e, "message", "fake mid-stream error")},
                        {"type", str(e, "type", "server_error")},
                        {"param", nullptr},
                        {"code", e.contains("code") ? e["code"] : json(nullptr)}}}});
      return out;  // the stream ends with the error, no [DONE]
    }
  }
  chunk(json::object(), finish_for(Api::openai, response));
  if (include_usage) {
    json last = base;
    last["choices"] = json::array();
    last["usage"] = openai_usage(usage_of(response, request, blocks));
    event(last);
  }
  out += "data: [DONE]" + eol + eol;
  return out;
}

// ---- Anthropic -------------------------------------------------------------

json anthropic_usage(const Usage& u, bool with_input) {
  json usage = {{"output_tokens", u.output}};
  if (with_input) {
    usage["input_tokens"] = u.input - u.cached;
    usage["cache_creation_input_tokens"] = 0;
    usage["cache_read_input_tokens"] = u.cached;
  }
  return usage;
}

json anthropic_block(const json& b, bool empty) {
  std::string type = str(b, "type", "text");
  if (type == "thinking") {
    return {{"type", "thinking"}, {"thinking", empty ? "" : str(b, "thinking")},
            {"signature", empty ? "" : "EqQBfakesignature"}};
  }
  if (type == "redacted_thinking") return {{"type", "redacted_thinking"}, {"data", str(b, "data", "EmwKAhgBEgy")}};
  return {{"type", "text"}, {"text", empty ? "" : str(b, "text")}};
}

std::string anthropic_json(const json& response, const json& request, int serial) {
  json blocks = blocks_of(response);
  json content = json::array();
  for (const auto& b : blocks) content.push_back(anthropic_block(b, false));
  json body = {{"id", "msg_fake_" + std::to_string(serial)},
               {"type", "message"},
               {"role", "assistant"},
               {"model", model_of(response, request)},
               {"content", content},
               {"stop_reason", finish_for(Api::anthropic, response)},
               {"stop_sequence", nullptr},
               {"usage", anthropic_usage(usage_of(response, request, blocks), true)}};
  return body.dump();
}

std::string anthropic_sse(const json& response, const json& request, int serial, const std::string& eol) {
  json blocks = blocks_of(response);
  Usage u = usage_of(response, request, blocks);
  std::string out;
  auto event = [&](const std::string& name, const json& payload) {
    out += "event: " + name + eol + "data: " + payload.dump() + eol + eol;
  };
  json start_usage = anthropic_usage(u, true);
  start_usage["output_tokens"] = 1;
  event("message_start", {{"type", "message_start"},
                          {"message", {{"id", "msg_fake_" + std::to_string(serial)},
                                       {"type", "message"},
                                       {"role", "assistant"},
                                       {"content", json::array()},
                                       {"model", model_of(response, request)},
                                       {"stop_reason", nullptr},
                                       {"stop_sequence", nullptr},
                                       {"usage", start_usage}}}});
  for (size_t i = 0; i < blocks.size(); ++i) {
    const json& b = blocks[i];
    std::string type = str(b, "type", "text");
    event("content_block_start", {{"type", "content_block_start"}, {"index", i}, {"content_block", anthropic_block(b, true)}});
    if (i == 0) event("ping", {{"type", "ping"}});
    if (type == "thinking") {
      for (const auto& p : pieces(str(b, "thinking"))) {
        event("content_block_delta", {{"type", "content_block_delta"}, {"index", i},
                                      {"delta", {{"type", "thinking_delta"}, {"thinking", p}}}});
      }
      event("content_block_delta", {{"type", "content_block_delta"}, {"index", i},
                                    {"delta", {{"type", "signature_delta"}, {"signature", "EqQBfakesignature"}}}});
    } else if (type == "text") {
      for (const auto& p : pieces(str(b, "text"))) {
        event("content_block_delta", {{"type", "content_block_delta"}, {"index", i},
                                      {"delta", {{"type", "text_delta"}, {"text", p}}}});
      }
    }
    if (response.contains("sse_error")) {
      const json& e = response["sse_error"];
      event("error", {{"type", "error"},
                      {"error", {{"type", str(e, "type", "overloaded_error")},
                                 {"message", str(e, "message", "Overloaded")}}}});
      return out;  // the stream ends with the error, no message_stop
    }
    event("content_block_stop", {{"type", "content_block_stop"}, {"index", i}});
  }
  event("message_delta", {{"type", "message_delta"},
                          {"delta", {{"stop_reason", finish_for(Api::anthropic, response)}, {"stop_sequence", nullptr}}},
                          {"usage", anthropic_usage(u, false)}});
  event("message_stop", {{"type", "message_stop"}});
  return out;
}

}  // namespace

std::string check_response(const json& r) {
  if (!r.is_object()) return "expected an object";
  for (const char* key : {"text", "finish", "raw_body", "content_type", "model"}) {
    if (r.contains(key) && !r[key].is_string()) return std::string(key) + ": expected a string";
  }
  for (const char* key : {"status", "delay_ms", "stall_after_bytes", "truncate_after_bytes", "event_delay_ms"}) {
    if (r.contains(key) && !r[key].is_number_integer()) return std::string(key) + ": expected an integer";
  }
  for (const char* key : {"crlf", "content_as_parts"}) {
    if (r.contains(key) && !r[key].is_boolean()) return std::string(key) + ": expected true or false";
  }
  if (r.contains("usage")) {
    for (const char* key : {"input", "output", "cached"}) {
      if (r["usage"].contains(key) && !r["usage"][key].is_number_integer()) {
        return std::string("usage.") + key + ": expected an integer";
      }
    }
  }
  for (const char* key : {"headers", "error", "usage", "sse_error"}) {
    if (r.contains(key) && !r[key].is_object()) return std::string(key) + ": expected an object";
  }
  if (r.contains("blocks")) {
    if (!r["blocks"].is_array()) return "blocks: expected an array";
    for (size_t i = 0; i < r["blocks"].size(); ++i) {
      const json& b = r["blocks"][i];
      std::string type = b.is_object() ? str(b, "type") : "";
      if (type != "text" && type != "thinking" && type != "redacted_thinking") {
        return "blocks[" + std::to_string(i) + "].type: expected text, thinking or redacted_thinking";
      }
    }
  }
  if (r.contains("headers")) {
    for (const auto& [name, value] : r["headers"].items()) {
      if (!value.is_string()) return "headers." + name + ": expected a string";
    }
  }
  return "";
}

std::string render_error(Api api, const std::string& type, const std::string& code,
                         const std::string& message, int serial) {
  if (api == Api::openai) {
    return json{{"error", {{"message", message}, {"type", type}, {"param", nullptr},
                           {"code", code.empty() ? json(nullptr) : json(code)}}}}
        .dump();
  }
  json error = {{"type", type}, {"message", message}};
  if (!code.empty()) error["details"] = {{"error_code", code}};
  return json{{"type", "error"}, {"error", error}, {"request_id", "req_fake_" + std::to_string(serial)}}.dump();
}

Rendered render(Api api, const json& response, const json& request, int serial) {
  Rendered r;
  r.status = response.value("status", 200);
  if (response.contains("headers")) r.headers = response["headers"];
  std::string request_id_header = api == Api::openai ? "x-request-id" : "request-id";
  if (!r.headers.contains(request_id_header)) r.headers[request_id_header] = "req_fake_" + std::to_string(serial);
  if (response.contains("raw_body")) {
    r.content_type = str(response, "content_type", "text/plain");
    r.body = str(response, "raw_body");
    return r;
  }
  if (response.contains("error")) {
    const json& e = response["error"];
    r.content_type = "application/json";
    r.body = render_error(api, str(e, "type", "api_error"), str(e, "code"), str(e, "message", "fake error"), serial);
    return r;
  }
  bool stream = request.is_object() && request.value("stream", false);
  std::string eol = response.value("crlf", false) ? "\r\n" : "\n";
  if (stream) {
    r.content_type = "text/event-stream";
    r.body = api == Api::openai ? openai_sse(response, request, serial, eol) : anthropic_sse(response, request, serial, eol);
  } else {
    r.content_type = "application/json";
    r.body = api == Api::openai ? openai_json(response, request, serial) : anthropic_json(response, request, serial);
  }
  return r;
}

std::string render_models(Api api, const json& model_ids) {
  json data = json::array();
  for (const auto& id : model_ids) {
    if (api == Api::openai) {
      data.push_back({{"id", id}, {"object", "model"}, {"created", 1700000000}, {"owned_by", "fake"}});
    } else {
      data.push_back({{"type", "model"}, {"id", id}, {"display_name", id}, {"created_at", "2025-01-01T00:00:00Z"}});
    }
  }
  if (api == Api::openai) return json{{"object", "list"}, {"data", data}}.dump();
  return json{{"data", data},
              {"has_more", false},
              {"first_id", data.empty() ? json(nullptr) : data.front()["id"]},
              {"last_id", data.empty() ? json(nullptr) : data.back()["id"]}}
      .dump();
}

}  // namespace fake_llm
