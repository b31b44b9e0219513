// Errors and retries with a scripted transport and a recording sleeper: what
// is retried, how long it waits, what stops the run and what it says to fix.
#include <chrono>
#include <ctime>
#include <thread>

#include "catch.h"
#include "llm/error_policy.h"
#include "unit/llm/llm_rig.h"

namespace ar {
namespace {

const std::string kOk = R"({"choices":[{"index":0,"message":{"role":"assistant","content":"fine"},"finish_reason":"stop"}],
                           "usage":{"prompt_tokens":5,"completion_tokens":2}})";

LlmSettings whole_json(LlmSettings s) {
  s.stream = false;
  return s;
}

std::string openai_error(const std::string& type, const std::string& code, const std::string& message) {
  return R"({"error":{"message":")" + message + R"(","type":")" + type + R"(","param":null,"code":)" +
         (code.empty() ? std::string("null") : "\"" + code + "\"") + "}}";
}

std::string anthropic_error(const std::string& type, const std::string& message, const std::string& details = "") {
  return R"({"type":"error","error":{"type":")" + type + R"(","message":")" + message + "\"" +
         (details.empty() ? "" : R"(,"details":{"error_code":")" + details + "\"}") +
         R"(},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"})";
}

// Runs the call and returns the error it must throw.
LlmError failure_of(Rig& rig) {
  try {
    rig.client->complete(hello_request());
  } catch (const LlmError& e) {
    return e;
  }
  FAIL("the call succeeded but was expected to fail");
  return LlmError(LlmErrorKind::unavailable, "");
}

TEST_CASE("retry: 429 with retry-after is honoured, then the answer", "[llm][retry]") {
  Rig rig = make_rig(whole_json(openai_settings()),
                     {http_json(429, openai_error("requests", "rate_limit_exceeded", "Rate limit reached"), {{"retry-after", "3"}}),
                      http_json(200, kOk)});
  LlmResponse r = rig.client->complete(hello_request());
  CHECK(r.text == "fine");
  CHECK(r.attempts == 2);
  CHECK(rig.sleeper->waits == std::vector<double>{3.0});
}

TEST_CASE("retry: retry-after-ms, an HTTP date, and the cap", "[llm][retry]") {
  std::time_t now = 1445412473;  // 2015-10-21 07:27:53 UTC
  CHECK(parse_retry_after({{"retry-after-ms", "1500"}, {"retry-after", "9"}}, now) == Approx(1.5));
  CHECK(parse_retry_after({{"retry-after", "2.5"}}, now) == Approx(2.5));
  CHECK(parse_retry_after({{"retry-after", "Wed, 21 Oct 2015 07:28:00 GMT"}}, now) == Approx(7));
  CHECK(parse_retry_after({{"retry-after", "Wed, 21 Oct 2015 07:00:00 GMT"}}, now) == Approx(0));
  CHECK_FALSE(parse_retry_after({{"retry-after", "soon"}}, now).has_value());
  CHECK_FALSE(parse_retry_after({}, now).has_value());

  LlmSettings s = whole_json(openai_settings());
  s.backoff_max_s = 60;
  Rig rig = make_rig(s, {http_json(503, "{}", {{"retry-after", "3600"}}), http_json(200, kOk)});
  rig.client->complete(hello_request());
  CHECK(rig.sleeper->waits == std::vector<double>{60.0});
}

TEST_CASE("retry: 529 overloaded and 500 are retried with jittered exponential backoff", "[llm][retry]") {
  LlmSettings s = anthropic_settings();
  s.stream = false;
  Rig rig = make_rig(s, {http_json(529, anthropic_error("overloaded_error", "Overloaded")),
                     http_json(500, anthropic_error("api_error", "Internal server error")),
                     http_json(408, "{}"), http_json(409, "{}"),
                     http_json(200, R"({"type":"message","content":[{"type":"text","text":"at last"}],"stop_reason":"end_turn"})")});
  LlmResponse r = rig.client->complete(hello_request());
  CHECK(r.text == "at last");
  CHECK(r.attempts == 5);
  REQUIRE(rig.sleeper->waits.size() == 4);
  for (size_t i = 0; i < rig.sleeper->waits.size(); ++i) {
    double ceiling = std::min(s.backoff_max_s, s.backoff_initial_s * (1 << i));
    CHECK(rig.sleeper->waits[i] >= 0);
    CHECK(rig.sleeper->waits[i] <= ceiling);
  }
  CHECK(backoff_delay(1, 1, 60, 0.999) < 1.0);
  CHECK(backoff_delay(4, 1, 60, 0.5) == Approx(4.0));
  CHECK(backoff_delay(10, 1, 60, 0.5) == Approx(30.0));  // capped at 60, then jittered
}

TEST_CASE("retry: exhausted attempts become 'unavailable'", "[llm][retry]") {
  LlmSettings s = whole_json(openai_settings());
  s.max_attempts = 3;
  Rig rig = make_rig(s, {http_json(503, openai_error("server_error", "", "The server is overloaded")),
                         http_failure(TransportError::connect, "Connection refused"),
                         http_failure(TransportError::timeout)});
  LlmError e = failure_of(rig);
  CHECK(e.kind() == LlmErrorKind::unavailable);
  CHECK_FALSE(e.stops_run());
  CHECK(e.attempts() == 3);
  CHECK(rig.transport->requests.size() == 3);
  CHECK(rig.sleeper->waits.size() == 2);
  std::string what = e.what();
  CHECK(what.find("did not answer after 3 attempts") != std::string::npos);
  CHECK(what.find("no complete answer") != std::string::npos);  // the last failure, a timeout
}

TEST_CASE("no retry: 429 insufficient_quota and the billing codes stop the run", "[llm][retry]") {
  struct Case { LlmSettings settings; ScriptedHttp http; };
  std::vector<Case> cases = {
      {whole_json(openai_settings()), http_json(429, openai_error("insufficient_quota", "insufficient_quota",
          "You exceeded your current quota, please check your plan and billing details."), {{"retry-after", "1"}})},
      {whole_json(openai_settings()), http_json(429, openai_error("insufficient_quota", "", "You exceeded your current quota"))},
      {whole_json(openai_settings()), http_json(429, openai_error("billing", "billing_hard_limit_reached", "Billing hard limit has been reached"))},
      {whole_json(openai_settings()), http_json(429, openai_error("billing", "billing_not_active", "Your account is not active"))},
      {whole_json(anthropic_settings()), http_json(429, anthropic_error("rate_limit_error", "spend limit reached", "enforced_spend_limit_reached"))},
      {whole_json(anthropic_settings()), http_json(402, anthropic_error("billing_error", "Payment required"))},
      {whole_json(anthropic_settings()), http_json(400, anthropic_error("invalid_request_error",
          "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."))},
  };
  for (auto& c : cases) {
    Rig rig = make_rig(c.settings, {c.http, http_json(200, kOk)});
    LlmError e = failure_of(rig);
    CHECK(e.kind() == LlmErrorKind::quota);
    CHECK(e.stops_run());
    CHECK(rig.transport->requests.size() == 1);
    CHECK(rig.sleeper->waits.empty());
    CHECK(std::string(e.what()).find("quota exhausted") != std::string::npos);
    CHECK(std::string(e.what()).find("add credit at the provider or choose another --llm-model/--llm-base-url") != std::string::npos);
  }
}

TEST_CASE("no retry: 401 and 403 say which key to fix", "[llm][retry]") {
  Rig bad_key = make_rig(whole_json(openai_settings()),
                         {http_json(401, openai_error("invalid_request_error", "invalid_api_key",
                              "Incorrect API key provided: sk-test-****************************fXYZ. You can find your API key at https://platform.openai.com/account/api-keys."))});
  LlmError e = failure_of(bad_key);
  CHECK(e.kind() == LlmErrorKind::auth);
  CHECK(e.http_status() == 401);
  CHECK(e.provider_code() == "invalid_api_key");
  std::string what = e.what();
  CHECK(what.find("the API key was rejected (401") != std::string::npos);
  CHECK(what.find("set AUTORESEARCH_LLM_API_KEY or OPENAI_API_KEY to a valid key") != std::string::npos);
  CHECK(what.find("key from AUTORESEARCH_LLM_API_KEY") != std::string::npos);
  CHECK(what.find("fXYZ") == std::string::npos);  // even the masked echo is redacted

  Rig anthropic = make_rig(whole_json(anthropic_settings()), {http_json(401, anthropic_error("authentication_error", "invalid x-api-key"))});
  CHECK(std::string(failure_of(anthropic).what()).find("ANTHROPIC_API_KEY") != std::string::npos);

  Rig forbidden = make_rig(whole_json(anthropic_settings()), {http_json(403, anthropic_error("permission_error", "not allowed"))});
  LlmError f = failure_of(forbidden);
  CHECK(f.kind() == LlmErrorKind::auth);
  CHECK(std::string(f.what()).find("not allowed to use model 'claude-sonnet-4-5'") != std::string::npos);
  CHECK(forbidden.transport->requests.size() == 1);

  Rig no_key = make_rig(whole_json(openai_settings()), {http_json(401, openai_error("invalid_request_error", "", "You didn't provide an API key."))}, "");
  CHECK(std::string(failure_of(no_key).what()).find("requires an API key") != std::string::npos);
}

TEST_CASE("no retry: 400, 404, redirects and unverifiable TLS name the setting to fix", "[llm][retry]") {
  Rig missing = make_rig(whole_json(openai_settings("gpt-9")),
                         {http_json(404, openai_error("invalid_request_error", "model_not_found", "The model `gpt-9` does not exist"))});
  LlmError e = failure_of(missing);
  CHECK(e.kind() == LlmErrorKind::bad_request);
  CHECK(std::string(e.what()).find("check --llm-model 'gpt-9'") != std::string::npos);

  Rig too_long = make_rig(whole_json(openai_settings()),
                          {http_json(400, openai_error("invalid_request_error", "context_length_exceeded",
                               "This model's maximum context length is 128000 tokens."))});
  LlmError t = failure_of(too_long);
  CHECK(t.kind() == LlmErrorKind::bad_request);
  CHECK(t.provider_code() == "context_length_exceeded");
  CHECK(std::string(t.what()).find("the prompt is longer than model 'gpt-4.1' accepts") != std::string::npos);

  Rig moved = make_rig(whole_json(openai_settings()), {http_json(301, "", {{"location", "https://elsewhere.example/v1?token=abc"}})});
  LlmError m = failure_of(moved);
  CHECK(m.kind() == LlmErrorKind::bad_request);
  CHECK(std::string(m.what()).find("redirect to https://elsewhere.example/v1:") != std::string::npos);

  Rig tls = make_rig(whole_json(openai_settings()), {http_failure(TransportError::tls_verify, "SSL certificate problem")});
  LlmError v = failure_of(tls);
  CHECK(v.kind() == LlmErrorKind::bad_request);
  CHECK(tls.transport->requests.size() == 1);
}

TEST_CASE("retry: a 2xx body that is not JSON, a bounded number of times", "[llm][retry]") {
  LlmSettings s = whole_json(openai_settings());
  ScriptedHttp html = http_raw(200, "text/html", "<html><body>502 Bad Gateway</body></html>");
  Rig recovers = make_rig(s, {html, http_json(200, kOk)});
  CHECK(recovers.client->complete(hello_request()).attempts == 2);

  Rig never = make_rig(s, {html, html, html, html, html});
  LlmError e = failure_of(never);
  CHECK(e.kind() == LlmErrorKind::bad_response);
  CHECK(never.transport->requests.size() == 3);  // max_bad_response_attempts
  CHECK(std::string(e.what()).find("body starts '<html>") != std::string::npos);

  Rig wrong_shape = make_rig(s, {http_json(200, R"({"result":"no choices here"})"), http_json(200, kOk)});
  CHECK(wrong_shape.client->complete(hello_request()).text == "fine");
}

TEST_CASE("retry: a truncated body or a stream without its end is retried", "[llm][retry]") {
  Rig cut = make_rig(whole_json(openai_settings()),
                     {http_failure(TransportError::incomplete, "transfer closed with 120 bytes remaining"), http_json(200, kOk)});
  CHECK(cut.client->complete(hello_request()).attempts == 2);

  std::string no_done = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"half\"},\"finish_reason\":null}]}\n\n";
  std::string whole = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"whole\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
  Rig stream = make_rig(openai_settings(), {http_sse(no_done, 3), http_sse(whole, 3)});
  LlmResponse r = stream.client->complete(hello_request());
  CHECK(r.text == "whole");  // the half answer of the first attempt is not kept
  CHECK(r.attempts == 2);

  std::string no_stop = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n";
  LlmSettings s = anthropic_settings();
  s.max_attempts = 2;
  Rig anthropic = make_rig(s, {http_sse(no_stop), http_sse(no_stop)});
  LlmError e = failure_of(anthropic);
  CHECK(e.kind() == LlmErrorKind::unavailable);
  CHECK(std::string(e.what()).find("without message_stop") != std::string::npos);
}

TEST_CASE("retry: an error event mid-stream, retryable or not by its type", "[llm][retry]") {
  std::string overloaded =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-x\"}}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"par\"}}\n\n"
      "event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}\n\n";
  std::string good =
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"done\"}}\n\n"
      "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  Rig rig = make_rig(anthropic_settings(), {http_sse(overloaded, 2), http_sse(good, 2)});
  LlmResponse r = rig.client->complete(hello_request());
  CHECK(r.text == "done");
  CHECK(r.attempts == 2);

  std::string invalid = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"bad\"}}\n\n";
  Rig fatal = make_rig(anthropic_settings(), {http_sse(invalid), http_sse(good)});
  LlmError e = failure_of(fatal);
  CHECK(e.kind() == LlmErrorKind::bad_request);
  CHECK(fatal.transport->requests.size() == 1);

  std::string openai_error_chunk = "data: {\"error\":{\"message\":\"upstream overloaded\",\"type\":\"server_error\",\"code\":null}}\n\n";
  std::string openai_good = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
  Rig openai = make_rig(openai_settings(), {http_sse(openai_error_chunk), http_sse(openai_good)});
  CHECK(openai.client->complete(hello_request()).text == "ok");
}

TEST_CASE("cancel: during the backoff, before the call, or during the transfer", "[llm][retry]") {
  std::atomic<bool> cancel{false};
  Rig rig = make_rig(whole_json(openai_settings()), {http_json(500, "{}"), http_json(200, kOk)});
  rig.sleeper->cancel_on_wait = 1;
  rig.sleeper->flag = &cancel;
  LlmRequest request = hello_request();
  request.cancel = &cancel;
  try {
    rig.client->complete(request);
    FAIL("expected a cancellation");
  } catch (const LlmError& e) {
    CHECK(e.kind() == LlmErrorKind::cancelled);
    CHECK_FALSE(e.stops_run());
  }
  CHECK(rig.transport->requests.size() == 1);  // no second attempt after Ctrl-C

  Rig before = make_rig(whole_json(openai_settings()), {http_json(200, kOk)});
  try {
    before.client->complete(request);  // the flag is still set
    FAIL("expected a cancellation");
  } catch (const LlmError& e) {
    CHECK(e.kind() == LlmErrorKind::cancelled);
  }
  CHECK(before.transport->requests.empty());

  Rig during = make_rig(whole_json(openai_settings()), {http_failure(TransportError::cancelled), http_json(200, kOk)});
  LlmRequest plain = hello_request();
  try {
    during.client->complete(plain);
    FAIL("expected a cancellation");
  } catch (const LlmError& e) {
    CHECK(e.kind() == LlmErrorKind::cancelled);
  }
  CHECK(during.transport->requests.size() == 1);
}

TEST_CASE("cancel: the real sleeper wakes up when the flag is set", "[llm][retry]") {
  std::atomic<bool> cancel{false};
  std::thread ctrl_c([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    cancel = true;
  });
  auto start = std::chrono::steady_clock::now();
  bool slept = make_real_sleeper()->sleep_for(30.0, &cancel);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ctrl_c.join();
  CHECK_FALSE(slept);
  CHECK(seconds < 1.0);
  CHECK(make_real_sleeper()->sleep_for(0.01, nullptr));
}

TEST_CASE("secrets: no error message contains the key, even when the provider echoes it", "[llm][retry][secrets]") {
  std::string echo = "key " + kTestKey + " is wrong";
  std::vector<std::pair<LlmSettings, std::vector<ScriptedHttp>>> scenarios = {
      {whole_json(openai_settings()), {http_json(401, openai_error("invalid_request_error", "invalid_api_key", echo))}},
      {whole_json(openai_settings()), {http_json(403, openai_error("permission", "", echo))}},
      {whole_json(openai_settings()), {http_json(429, openai_error("insufficient_quota", "insufficient_quota", echo))}},
      {whole_json(openai_settings()), {http_json(400, openai_error("invalid_request_error", "", echo))}},
      {whole_json(openai_settings()), {http_json(404, openai_error("invalid_request_error", "", echo))}},
      {whole_json(anthropic_settings()), {http_json(401, anthropic_error("authentication_error", echo))}},
      {whole_json(anthropic_settings()), {http_json(402, anthropic_error("billing_error", echo))}},
      {whole_json(openai_settings()), {http_raw(200, "text/plain", echo), http_raw(200, "", echo), http_raw(200, "", echo)}},
      {whole_json(openai_settings()), std::vector<ScriptedHttp>(6, http_json(500, openai_error("server_error", "", echo)))},
      {openai_settings(), std::vector<ScriptedHttp>(6, http_sse("data: {\"error\":{\"message\":\"" + echo + "\",\"type\":\"server_error\"}}\n\n"))},
      {anthropic_settings(), {http_sse("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"permission_error\",\"message\":\"" + echo + "\"}}\n\n")}},
      {whole_json(openai_settings()), {http_failure(TransportError::tls_verify, echo)}},
  };
  int checked = 0;
  for (auto& [settings, script] : scenarios) {
    Rig rig = make_rig(settings, script);
    LlmError e = failure_of(rig);
    std::string what = e.what();
    INFO(what);
    CHECK(what.find(kTestKey) == std::string::npos);
    CHECK(what.find("SECRET") == std::string::npos);
    ++checked;
  }
  CHECK(checked == static_cast<int>(scenarios.size()));
  CHECK(redact_secrets("x " + kTestKey + " y", kTestKey) == "x [redacted] y");
  CHECK(redact_secrets("provided: sk-proj-****abcd.", "") == "provided: [redacted].");
  CHECK(redact_secrets("task-force and risk-taking", "") == "task-force and risk-taking");
}

}  // namespace
}  // namespace ar
