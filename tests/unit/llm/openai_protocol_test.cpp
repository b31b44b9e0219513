// The OpenAI-compatible dialect: the request as sent, and answers streamed or
// whole, modelled on OpenAI's documented chat.completion(.chunk) objects.
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

// The shape of a documented stream with stream_options.include_usage: the
// role chunk, content deltas, an empty delta with finish_reason, then the
// usage chunk with empty choices, then [DONE]. Every chunk but the last
// carries "usage": null.
std::string chunk(const std::string& choices, const std::string& usage = "null") {
  return "data: {\"id\":\"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG\",\"object\":\"chat.completion.chunk\","
         "\"created\":1741570283,\"model\":\"gpt-4.1-2025-04-14\",\"service_tier\":\"default\","
         "\"system_fingerprint\":\"fp_1\",\"choices\":" + choices + ",\"usage\":" + usage + "}\n\n";
}

std::string documented_stream(const std::string& finish = "stop") {
  return chunk(R"([{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}])") +
         chunk(R"([{"index":0,"delta":{"content":"Use shared"},"logprobs":null,"finish_reason":null}])") +
         chunk(R"([{"index":0,"delta":{"content":" memory tiles."},"logprobs":null,"finish_reason":null}])") +
         chunk(R"([{"index":0,"delta":{},"logprobs":null,"finish_reason":")" + finish + R"("}])") +
         chunk("[]", R"({"prompt_tokens":1200,"completion_tokens":300,"total_tokens":1500,)"
                     R"("prompt_tokens_details":{"cached_tokens":1000,"audio_tokens":0},)"
                     R"("completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,)"
                     R"("accepted_prediction_tokens":0,"rejected_prediction_tokens":0}})") +
         "data: [DONE]\n\n";
}

TEST_CASE("openai request: the exact JSON, system first, temperature left out when unset", "[llm][openai]") {
  Rig rig = make_rig(openai_settings(), {http_sse(documented_stream(), 0)});
  rig.client->complete(hello_request());
  REQUIRE(rig.transport->requests.size() == 1);
  const HttpRequest& r = rig.transport->requests[0];
  CHECK(r.method == "POST");
  CHECK(r.url == "https://api.openai.com/v1/chat/completions");
  CHECK(json::parse(r.body) == json::parse(R"({
    "model": "gpt-4.1",
    "messages": [{"role": "system", "content": "You edit CUDA kernels."},
                 {"role": "user", "content": "Make it faster."}],
    "max_tokens": 1000,
    "stream": true,
    "stream_options": {"include_usage": true}})"));
  CHECK(header(r, "Authorization") == "Bearer " + kTestKey);
  CHECK(header(r, "Content-Type") == "application/json");
  CHECK(header(r, "Accept") == "text/event-stream");
  CHECK(r.body.find(kTestKey) == std::string::npos);
  CHECK(r.total_timeout_s == 600);
  CHECK(r.connect_timeout_s == 10);
  CHECK(r.idle_timeout_s == 120);
}

TEST_CASE("openai request: temperature, no stream, per-call max tokens, no key", "[llm][openai]") {
  LlmSettings s = openai_settings();
  s.temperature = 0.25;
  s.stream = false;
  s.base_url = "http://localhost:8000/v1/";
  Rig rig = make_rig(s, {http_json(200, R"({"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]})")}, "");
  LlmRequest request = hello_request();
  request.system.clear();
  request.max_output_tokens = 77;
  rig.client->complete(request);
  const HttpRequest& r = rig.transport->requests[0];
  CHECK(r.url == "http://localhost:8000/v1/chat/completions");
  CHECK(json::parse(r.body) == json::parse(R"({
    "model": "gpt-4.1", "messages": [{"role": "user", "content": "Make it faster."}],
    "max_tokens": 77, "temperature": 0.25})"));
  CHECK(header(r, "Authorization") == "<absent>");  // a local endpoint without a key: no auth header
  CHECK(header(r, "Accept") == "application/json");
}

TEST_CASE("openai request: max_completion_tokens for OpenAI's reasoning families only", "[llm][openai]") {
  auto field = [](const std::string& model, const std::string& base_url, MaxTokensField f = MaxTokensField::automatic) {
    LlmSettings s = openai_settings(model);
    s.base_url = base_url;
    s.max_tokens_field = f;
    return max_tokens_field_name(s);
  };
  CHECK(field("gpt-5", "") == "max_completion_tokens");
  CHECK(field("gpt-5.1-mini", "https://api.openai.com/v1") == "max_completion_tokens");
  CHECK(field("o1", "") == "max_completion_tokens");
  CHECK(field("o3-mini", "") == "max_completion_tokens");
  CHECK(field("o4-mini-2025-04-16", "") == "max_completion_tokens");
  CHECK(field("gpt-4.1", "") == "max_tokens");
  CHECK(field("gpt-4o-mini", "") == "max_tokens");
  CHECK(field("o10-custom", "") == "max_tokens");
  CHECK(field("gpt-5", "http://localhost:8000/v1") == "max_tokens");          // vLLM serving a model named gpt-5
  CHECK(field("o3", "https://openrouter.ai/api/v1") == "max_tokens");
  CHECK(field("gpt-4.1", "", MaxTokensField::max_completion_tokens) == "max_completion_tokens");
  CHECK(field("gpt-5", "", MaxTokensField::max_tokens) == "max_tokens");

  Rig rig = make_rig(openai_settings("gpt-5-mini"), {http_sse(documented_stream(), 0)});
  rig.client->complete(hello_request());
  json body = json::parse(rig.transport->requests[0].body);
  CHECK(body["max_completion_tokens"] == 1000);
  CHECK_FALSE(body.contains("max_tokens"));
  CHECK_FALSE(body.contains("temperature"));
}

TEST_CASE("openai stream: fed byte by byte, text, finish, usage, cost, request id", "[llm][openai]") {
  ScriptedHttp answer = http_sse(documented_stream(), 1);
  answer.headers["x-request-id"] = "req_abc123";
  Rig rig = make_rig(openai_settings(), {answer});
  std::vector<size_t> progress;
  LlmRequest request = hello_request();
  request.on_progress = [&](const LlmProgress& p) { progress.push_back(p.answer_chars); };
  LlmResponse r = rig.client->complete(request);
  CHECK(r.text == "Use shared memory tiles.");
  CHECK(r.finish_reason == "stop");
  CHECK_FALSE(r.truncated);
  CHECK(r.usage.input_tokens == 1200);
  CHECK(r.usage.output_tokens == 300);
  CHECK(r.usage.cached_input_tokens == 1000);
  CHECK(r.usage.reasoning_tokens == 0);
  CHECK_FALSE(r.usage.estimated);
  CHECK(r.model == "gpt-4.1-2025-04-14");
  CHECK(r.request_id == "req_abc123");
  CHECK(r.attempts == 1);
  // 200 uncached * $2 + 1000 cached * $0.5 + 300 out * $8, per million.
  CHECK(r.cost_usd == Approx((200 * 2.0 + 1000 * 0.5 + 300 * 8.0) / 1e6));
  CHECK_FALSE(r.cost_estimated);
  REQUIRE_FALSE(progress.empty());
  CHECK(progress.back() == r.text.size());
}

TEST_CASE("openai stream: CRLF line endings and an SSE comment", "[llm][openai]") {
  std::string stream = ": OPENROUTER PROCESSING\n\n" + documented_stream();
  std::string crlf;
  for (char c : stream) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  Rig rig = make_rig(openai_settings(), {http_sse(crlf, 3)});
  CHECK(rig.client->complete(hello_request()).text == "Use shared memory tiles.");
}

TEST_CASE("openai stream: reasoning deltas are counted, not answered", "[llm][openai]") {
  // DeepSeek / vLLM spell it reasoning_content, OpenRouter / Ollama reasoning.
  std::string stream =
      chunk(R"([{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":""},"finish_reason":null}])") +
      chunk(R"([{"index":0,"delta":{"content":null,"reasoning_content":"Think: tiles"},"finish_reason":null}])") +
      chunk(R"([{"index":0,"delta":{"reasoning":" of 64."},"finish_reason":null}])") +
      chunk(R"([{"index":0,"delta":{"content":"Answer."},"finish_reason":null}])") +
      chunk(R"([{"index":0,"delta":{},"finish_reason":"stop"}])") +
      chunk("[]", R"({"prompt_tokens":10,"completion_tokens":40,"completion_tokens_details":{"reasoning_tokens":30}})") +
      "data: [DONE]\n\n";
  Rig rig = make_rig(openai_settings(), {http_sse(stream, 5)});
  LlmResponse r = rig.client->complete(hello_request());
  CHECK(r.text == "Answer.");
  CHECK(r.reasoning_chars == std::string("Think: tiles of 64.").size());
  CHECK(r.usage.reasoning_tokens == 30);
}

TEST_CASE("openai: finish_reason length means truncated", "[llm][openai]") {
  Rig rig = make_rig(openai_settings(), {http_sse(documented_stream("length"), 7)});
  LlmResponse r = rig.client->complete(hello_request());
  CHECK(r.finish_reason == "length");
  CHECK(r.raw_finish_reason == "length");
  CHECK(r.truncated);
}

TEST_CASE("openai: other finish reasons are normalised", "[llm][openai]") {
  Rig filtered = make_rig(openai_settings(), {http_sse(documented_stream("content_filter"), 0)});
  CHECK(filtered.client->complete(hello_request()).finish_reason == "content_filter");
  Rig tools = make_rig(openai_settings(), {http_sse(documented_stream("tool_calls"), 0)});
  CHECK(tools.client->complete(hello_request()).finish_reason == "other:tool_calls");
}

TEST_CASE("openai non-streaming: content as a string or as an array of parts", "[llm][openai]") {
  LlmSettings s = openai_settings();
  s.stream = false;
  std::string as_string = R"({"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4.1-2025-04-14",
    "choices":[{"index":0,"message":{"role":"assistant","content":"Whole answer.","refusal":null},
                "logprobs":null,"finish_reason":"stop"}],
    "usage":{"prompt_tokens":9,"completion_tokens":12,"total_tokens":21}})";
  std::string as_parts = R"({"choices":[{"index":0,"message":{"role":"assistant",
    "content":[{"type":"text","text":"Part one, "},{"type":"text","text":"part two."}]},"finish_reason":"length"}],
    "usage":{"prompt_tokens":9,"completion_tokens":12}})";
  Rig rig = make_rig(s, {http_json(200, as_string), http_json(200, as_parts)});
  LlmResponse a = rig.client->complete(hello_request());
  CHECK(a.text == "Whole answer.");
  CHECK(a.usage.input_tokens == 9);
  CHECK(a.usage.output_tokens == 12);
  LlmResponse b = rig.client->complete(hello_request());
  CHECK(b.text == "Part one, part two.");
  CHECK(b.truncated);
}

TEST_CASE("openai: a refusal instead of content", "[llm][openai]") {
  LlmSettings s = openai_settings();
  s.stream = false;
  Rig rig = make_rig(s, {http_json(200, R"({"choices":[{"index":0,"message":{"role":"assistant","content":null,
      "refusal":"I can't help with that."},"finish_reason":"stop"}]})")});
  LlmResponse r = rig.client->complete(hello_request());
  CHECK(r.text.empty());
  CHECK(r.finish_reason == "refusal");
}

TEST_CASE("openai: no usage reported: tokens estimated on the high side, flagged", "[llm][openai]") {
  std::string stream = chunk(R"([{"index":0,"delta":{"content":"abcdefghi"},"finish_reason":"stop"}])") + "data: [DONE]\n\n";
  Rig rig = make_rig(openai_settings(), {http_sse(stream, 0)});
  LlmResponse r = rig.client->complete(hello_request());
  CHECK(r.usage.estimated);
  CHECK(r.usage.output_tokens == 3);  // 9 characters at 3 a token
  CHECK(r.usage.input_tokens > 0);
  CHECK(r.cost_estimated);
  CHECK(r.cost_usd > 0);
}

}  // namespace
}  // namespace ar
