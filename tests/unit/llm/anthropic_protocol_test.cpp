// The Anthropic dialect: the request as sent, and answers modelled on the
// streams in Anthropic's streaming guide (basic, extended thinking, tool use)
// and on the documented message object.
#include <string>

#include <nlohmann/json.hpp>

#include "catch.h"
#include "unit/llm/llm_rig.h"

namespace ar {
namespace {

using nlohmann::json;

std::string header(const HttpRequest& r, const std::string& name) {
  for (const auto& [n, v] : r.headers) {
    if (n == name) return v;
  }
  return "<absent>";
}

std::string event(const std::string& name, const std::string& data) {
  return "event: " + name + "\ndata: " + data + "\n\n";
}

// Extended thinking, then two text blocks (as a tool call or citations split
// text), a tool_use block with input_json_delta, pings between.
std::string thinking_stream(const std::string& stop_reason = "end_turn") {
  return event("message_start", R"({"type": "message_start", "message": {"id": "msg_01", "type": "message", "role": "assistant", "content": [], "model": "claude-sonnet-4-5-20250929", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 472, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 2000, "output_tokens": 2}}})") +
         event("content_block_start", R"({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}})") +
         event("ping", R"({"type": "ping"})") +
         event("content_block_delta", R"({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Let me solve this step by step"}})") +
         event("content_block_delta", R"({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds..."}})") +
         event("content_block_stop", R"({"type": "content_block_stop", "index": 0})") +
         event("content_block_start", R"({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}})") +
         event("content_block_delta", R"({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "kernel.cu\n<<<<<<< SEARCH\n"}})") +
         event("content_block_stop", R"({"type": "content_block_stop", "index": 1})") +
         event("content_block_start", R"({"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{}}})") +
         event("content_block_delta", R"({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"location\": \"San Fra"}})") +
         event("content_block_stop", R"({"type":"content_block_stop","index":2})") +
         event("ping", R"({"type": "ping"})") +
         event("content_block_start", R"({"type": "content_block_start", "index": 3, "content_block": {"type": "text", "text": ""}})") +
         event("content_block_delta", R"({"type": "content_block_delta", "index": 3, "delta": {"type": "text_delta", "text": "old\n=======\nnew\n>>>>>>> REPLACE\n"}})") +
         event("content_block_stop", R"({"type": "content_block_stop", "index": 3})") +
         event("message_delta", R"({"type": "message_delta", "delta": {"stop_reason": ")" + stop_reason + R"(", "stop_sequence": null}, "usage": {"output_tokens": 510}})") +
         event("message_stop", R"({"type": "message_stop"})");
}

TEST_CASE("anthropic request: the exact JSON and headers, system at the top level", "[llm][anthropic]") {
  Rig rig = make_rig(anthropic_settings(), {http_sse(thinking_stream(), 0)});
  rig.client->complete(hello_request());
  const HttpRequest& r = rig.transport->requests[0];
  CHECK(r.url == "https://api.anthropic.com/v1/messages");
  CHECK(json::parse(r.body) == json::parse(R"({
    "model": "claude-sonnet-4-5", "max_tokens": 1000, "system": "You edit CUDA kernels.",
    "messages": [{"role": "user", "content": "Make it faster."}], "stream": true})"));
  CHECK(header(r, "x-api-key") == kTestKey);
  CHECK(header(r, "anthropic-version") == "2023-06-01");
  CHECK(header(r, "content-type") == "application/json");
  CHECK(header(r, "Authorization") == "<absent>");
  CHECK(r.body.find(kTestKey) == std::string::npos);
}

TEST_CASE("anthropic request: temperature when set, no system when empty, base URL with /v1", "[llm][anthropic]") {
  LlmSettings s = anthropic_settings();
  s.temperature = 0.7;
  s.stream = false;
  s.base_url = "http://localhost:4000/v1/";
  s.anthropic_version = "2023-06-01";
  Rig rig = make_rig(s, {http_json(200, R"({"type":"message","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn"})")}, "");
  LlmRequest request = hello_request();
  request.system.clear();
  rig.client->complete(request);
  const HttpRequest& r = rig.transport->requests[0];
  CHECK(r.url == "http://localhost:4000/v1/messages");
  CHECK(json::parse(r.body) == json::parse(R"({
    "model": "claude-sonnet-4-5", "max_tokens": 1000, "temperature": 0.7,
    "messages": [{"role": "user", "content": "Make it faster."}]})"));
  CHECK(header(r, "x-api-key") == "<absent>");
}

TEST_CASE("anthropic stream: text blocks only, thinking and tool input left out, byte by byte", "[llm][anthropic]") {
  ScriptedHttp answer = http_sse(thinking_stream(), 1);
  answer.headers["request-id"] = "req_018EeWyXxfu5pfWkrYcMdjWG";
  Rig rig = make_rig(anthropic_settings(), {answer});
  LlmResponse r = rig.client->complete(hello_request());
  CHECK(r.text == "kernel.cu\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n");
  CHECK(r.reasoning_chars == std::string("Let me solve this step by step").size());
  CHECK(r.finish_reason == "stop");
  CHECK(r.raw_finish_reason == "end_turn");
  CHECK(r.usage.input_tokens == 472 + 100 + 2000);
  CHECK(r.usage.cached_input_tokens == 2000);
  CHECK(r.usage.cache_write_tokens == 100);
  CHECK(r.usage.output_tokens == 510);  // message_delta's cumulative count
  CHECK_FALSE(r.usage.reasoning_tokens.has_value());
  CHECK(r.model == "claude-sonnet-4-5-20250929");
  CHECK(r.request_id == "req_018EeWyXxfu5pfWkrYcMdjWG");
  CHECK(r.cost_usd == Approx((472 * 3.0 + 2000 * 0.3 + 100 * 3.75 + 510 * 15.0) / 1e6));
}

TEST_CASE("anthropic stream: CRLF line endings, odd chunk boundaries", "[llm][anthropic]") {
  std::string crlf;
  for (char c : thinking_stream()) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  for (size_t piece : {2, 5, 13}) {
    Rig rig = make_rig(anthropic_settings(), {http_sse(crlf, piece)});
    CHECK(rig.client->complete(hello_request()).text.find(">>>>>>> REPLACE") != std::string::npos);
  }
}

TEST_CASE("anthropic: stop_reason max_tokens means truncated; refusal and tool_use are named", "[llm][anthropic]") {
  Rig cut = make_rig(anthropic_settings(), {http_sse(thinking_stream("max_tokens"), 0)});
  LlmResponse r = cut.client->complete(hello_request());
  CHECK(r.finish_reason == "length");
  CHECK(r.truncated);
  Rig refused = make_rig(anthropic_settings(), {http_sse(thinking_stream("refusal"), 0)});
  CHECK(refused.client->complete(hello_request()).finish_reason == "refusal");
  Rig tool = make_rig(anthropic_settings(), {http_sse(thinking_stream("tool_use"), 0)});
  CHECK(tool.client->complete(hello_request()).finish_reason == "other:tool_use");
}

TEST_CASE("anthropic non-streaming: several content blocks, thinking excluded", "[llm][anthropic]") {
  LlmSettings s = anthropic_settings();
  s.stream = false;
  std::string body = R"({"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",
    "content":[{"type":"thinking","thinking":"hmm","signature":"sig"},
               {"type":"redacted_thinking","data":"EmwKAhgBEgy"},
               {"type":"text","text":"First, "},{"type":"text","text":"second."}],
    "stop_reason":"max_tokens","stop_sequence":null,
    "usage":{"input_tokens":20,"cache_creation_input_tokens":0,"cache_read_input_tokens":10,"output_tokens":30}})";
  Rig rig = make_rig(s, {http_json(200, body)});
  LlmResponse r = rig.client->complete(hello_request());
  CHECK(r.text == "First, second.");
  CHECK(r.reasoning_chars == 3);
  CHECK(r.truncated);
  CHECK(r.usage.input_tokens == 30);
  CHECK(r.usage.cached_input_tokens == 10);
  CHECK(r.usage.output_tokens == 30);
}

TEST_CASE("anthropic stream: events without blank lines between them still parse", "[llm][anthropic]") {
  // Some proxies (and copies of the docs) drop the blank lines: one event then
  // holds several data lines, each a whole JSON value.
  std::string stream;
  for (const char* data : {
           R"({"type":"message_start","message":{"model":"claude-x","usage":{"input_tokens":5,"output_tokens":1}}})",
           R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})",
           R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"joined"}})",
           R"({"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}})",
           R"({"type":"message_stop"})"}) {
    stream += std::string("data: ") + data + "\n";
  }
  Rig rig = make_rig(anthropic_settings(), {http_sse(stream + "\n", 4)});
  LlmResponse r = rig.client->complete(hello_request());
  CHECK(r.text == "joined");
  CHECK(r.usage.output_tokens == 3);
}

}  // namespace
}  // namespace ar
