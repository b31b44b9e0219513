// The real libcurl transport and the client over loopback HTTP, against
// tests/support/fake_llm_server run as a child process.
#ifdef AR_FAKE_LLM_SERVER

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include <nlohmann/json.hpp>

#include "catch.h"
#include "support/fake_llm_server_process.h"
#include "unit/fakes/temp_dir.h"
#include "unit/llm/llm_rig.h"

namespace ar {
namespace {

using nlohmann::json;

struct ServerRig {
  TempDir dir;
  std::unique_ptr<FakeLlmServerProcess> server;
  std::shared_ptr<RecordingSleeper> sleeper = std::make_shared<RecordingSleeper>();
  std::unique_ptr<LlmClient> client;

  ServerRig(LlmSettings settings, const json& script, const std::string& expect_key = kTestKey) {
    server = std::make_unique<FakeLlmServerProcess>(AR_FAKE_LLM_SERVER, dir / "server", script,
                                                    std::map<std::string, std::string>{{"FAKE_LLM_EXPECT_KEY", expect_key}});
    settings.base_url = server->base_url(settings.provider == LlmProvider::openai ? "/v1" : "");
    LlmClientDeps deps;
    deps.sleeper = sleeper;  // the real transport, a recording sleeper
    deps.jitter_seed = 7;
    client = make_llm_client(settings, ApiKey{kTestKey, "AUTORESEARCH_LLM_API_KEY"}, test_prices(), deps);
  }
};

json blocks_answer() {
  return {{"blocks", {{{"type", "thinking"}, {"thinking", "First I consider the tiling of the kernel."}},
                      {{"type", "text"}, {"text", "kernel.cu\n<<<<<<< SEARCH\nint x = 1;\n"}},
                      {{"type", "text"}, {"text", "=======\nint x = 2;\n>>>>>>> REPLACE\n"}}}},
          {"usage", {{"input", 1200}, {"output", 340}}}};
}

const std::string kEdit = "kernel.cu\n<<<<<<< SEARCH\nint x = 1;\n=======\nint x = 2;\n>>>>>>> REPLACE\n";

int free_port() {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  close(s);
  return ntohs(a.sin_port);
}

TEST_CASE("http: a streamed OpenAI answer over loopback; the record shows the auth, never the key", "[llm][http]") {
  LlmSettings s = openai_settings("gpt-4.1");
  ServerRig rig(s, {{"responses", {blocks_answer()}}});
  LlmResponse r = rig.client->complete(hello_request());
  CHECK(r.text == kEdit);
  CHECK(r.reasoning_chars == std::string("First I consider the tiling of the kernel.").size());
  CHECK(r.finish_reason == "stop");
  CHECK(r.usage.input_tokens == 1200);
  CHECK(r.usage.output_tokens == 340);
  CHECK(r.request_id == "req_fake_1");
  CHECK(r.cost_usd == 0);  // loopback is free
  CHECK(r.cost_basis == "free endpoint (local address)");

  auto records = rig.server->records();
  REQUIRE(records.size() == 1);
  CHECK(records[0]["path"] == "/v1/chat/completions");
  CHECK(records[0]["auth_header"] == "authorization");
  CHECK(records[0]["auth_matches"] == true);
  CHECK(records[0]["body"]["stream"] == true);
  CHECK(records[0]["body"]["stream_options"]["include_usage"] == true);
  CHECK(rig.server->record_text().find(kTestKey) == std::string::npos);
  CHECK(rig.server->stop() == 0);  // SIGTERM: a clean exit
}

TEST_CASE("http: a streamed Anthropic answer with thinking and two text blocks", "[llm][http]") {
  ServerRig rig(anthropic_settings(), {{"responses", {blocks_answer()}}});
  LlmResponse r = rig.client->complete(hello_request());
  CHECK(r.text == kEdit);
  CHECK(r.reasoning_chars > 0);
  CHECK(r.raw_finish_reason == "end_turn");
  CHECK(r.usage.input_tokens == 1200);
  CHECK(r.usage.output_tokens == 340);
  auto records = rig.server->records();
  REQUIRE(records.size() == 1);
  CHECK(records[0]["path"] == "/v1/messages");
  CHECK(records[0]["auth_header"] == "x-api-key");
  CHECK(records[0]["auth_matches"] == true);
  CHECK(records[0]["headers"]["anthropic-version"] == "2023-06-01");
  CHECK(rig.server->record_text().find(kTestKey) == std::string::npos);
}

TEST_CASE("http: the fake's finish 'length' and non-streamed answers, both providers", "[llm][http]") {
  for (LlmSettings s : {openai_settings(), anthropic_settings()}) {
    s.stream = false;
    ServerRig rig(s, {{"responses", {{{"text", "cut off he"}, {"finish", "length"}}}}});
    LlmResponse r = rig.client->complete(hello_request());
    CHECK(r.text == "cut off he");
    CHECK(r.truncated);
  }
}

TEST_CASE("http: an answer slower than the total timeout times out, then the retry answers", "[llm][http]") {
  LlmSettings s = openai_settings();
  s.stream = false;
  s.total_timeout_s = 0.4;
  ServerRig rig(s, {{"responses", {{{"text", "too late"}, {"delay_ms", 1500}}, {{"text", "on time"}}}}});
  LlmResponse r = rig.client->complete(hello_request());
  CHECK(r.text == "on time");
  CHECK(r.attempts == 2);
  CHECK(rig.sleeper->waits.size() == 1);
}

TEST_CASE("http: a stream that stalls hits the idle timeout, then the retry answers", "[llm][http]") {
  LlmSettings s = anthropic_settings();
  s.idle_timeout_s = 0.3;
  ServerRig rig(s, {{"responses", {{{"text", std::string(400, 'x')}, {"stall_after_bytes", 300}}, {{"text", "fresh"}}}}});
  auto start = std::chrono::steady_clock::now();
  LlmResponse r = rig.client->complete(hello_request());
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(r.text == "fresh");
  CHECK(r.attempts == 2);
  CHECK(seconds < 3.0);

  // The transport on its own says which timeout it was.
  ServerRig direct(s, {{"responses", {{{"text", "abc"}, {"stall_after_bytes", 10}}}}});
  HttpRequest http;
  http.url = direct.server->base_url("/v1/messages");
  http.body = R"({"model":"m","stream":true,"max_tokens":5,"messages":[]})";
  http.idle_timeout_s = 0.2;
  size_t got = 0;
  http.on_body = [&](std::string_view chunk) {
    got += chunk.size();
    return true;
  };
  HttpResponse response = make_curl_transport()->send(http);
  CHECK(response.error == TransportError::idle_timeout);
  CHECK(response.status == 200);
  CHECK(got == 10);
}

TEST_CASE("http: a truncated body or stream is retried", "[llm][http]") {
  LlmSettings whole = openai_settings();
  whole.stream = false;
  ServerRig cut(whole, {{"responses", {{{"text", "a long enough answer to cut"}, {"truncate_after_bytes", 40}}, {{"text", "complete"}}}}});
  LlmResponse r = cut.client->complete(hello_request());
  CHECK(r.text == "complete");
  CHECK(r.attempts == 2);

  ServerRig cut_stream(openai_settings(), {{"responses", {{{"text", "streamed then cut"}, {"truncate_after_bytes", 200}}, {{"text", "again"}}}}});
  CHECK(cut_stream.client->complete(hello_request()).text == "again");

  HttpRequest http;
  http.url = cut.server->base_url("/v1/chat/completions");
  http.body = R"({"model":"m","messages":[]})";
  ServerRig direct(whole, {{"responses", {{{"text", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}, {"truncate_after_bytes", 30}}}}});
  http.url = direct.server->base_url("/v1/chat/completions");
  HttpResponse response = make_curl_transport()->send(http);
  CHECK(response.error == TransportError::incomplete);
}

TEST_CASE("http: 429 retry-after, a body that is not JSON, a redirect not followed", "[llm][http]") {
  LlmSettings s = openai_settings();
  s.stream = false;
  ServerRig limited(s, {{"responses", {{{"status", 429}, {"headers", {{"retry-after", "2"}}},
                                        {"error", {{"type", "requests"}, {"code", "rate_limit_exceeded"}, {"message", "Rate limit reached"}}}},
                                       {{"text", "after the wait"}}}}});
  CHECK(limited.client->complete(hello_request()).text == "after the wait");
  CHECK(limited.sleeper->waits == std::vector<double>{2.0});

  ServerRig quota(s, {{"responses", {{{"status", 429}, {"error", {{"type", "insufficient_quota"}, {"code", "insufficient_quota"},
                                                                  {"message", "You exceeded your current quota"}}}}}}});
  try {
    quota.client->complete(hello_request());
    FAIL("expected a quota error");
  } catch (const LlmError& e) {
    CHECK(e.kind() == LlmErrorKind::quota);
  }
  CHECK(quota.server->records().size() == 1);

  ServerRig html(s, {{"responses", {{{"raw_body", "<html>502 Bad Gateway</html>"}, {"content_type", "text/html"}}}}});
  try {
    html.client->complete(hello_request());
    FAIL("expected a bad response");
  } catch (const LlmError& e) {
    CHECK(e.kind() == LlmErrorKind::bad_response);
  }
  CHECK(html.server->records().size() == 3);

  ServerRig moved(s, {{"responses", {{{"status", 302}, {"headers", {{"location", "http://198.51.100.7/v1"}}}, {"raw_body", ""}}}}});
  try {
    moved.client->complete(hello_request());
    FAIL("expected a redirect error");
  } catch (const LlmError& e) {
    CHECK(e.kind() == LlmErrorKind::bad_request);
    CHECK(std::string(e.what()).find("redirect to http://198.51.100.7/v1") != std::string::npos);
  }
  CHECK(moved.server->records().size() == 1);
}

TEST_CASE("http: after the script, error_500 answers 500 until the client gives up", "[llm][http]") {
  LlmSettings s = anthropic_settings();
  s.max_attempts = 2;
  ServerRig rig(s, {{"responses", {{{"text", "the only answer"}}}}, {"after_last", "error_500"}});
  CHECK(rig.client->complete(hello_request()).text == "the only answer");
  try {
    rig.client->complete(hello_request());
    FAIL("expected the endpoint to be unavailable");
  } catch (const LlmError& e) {
    CHECK(e.kind() == LlmErrorKind::unavailable);
    CHECK(e.http_status() == 500);
    CHECK(std::string(e.what()).find("the fake server's script is used up") != std::string::npos);
  }
  CHECK(rig.server->records().size() == 3);
}

TEST_CASE("http: Ctrl-C during a slow answer stops the call at once", "[llm][http]") {
  ServerRig rig(openai_settings(), {{"responses", {{{"text", "slow"}, {"delay_ms", 5000}}}}});
  std::atomic<bool> cancel{false};
  std::thread ctrl_c([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    cancel = true;
  });
  LlmRequest request = hello_request();
  request.cancel = &cancel;
  auto start = std::chrono::steady_clock::now();
  try {
    rig.client->complete(request);
    FAIL("expected a cancellation");
  } catch (const LlmError& e) {
    CHECK(e.kind() == LlmErrorKind::cancelled);
  }
  ctrl_c.join();
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 1.5);
}

TEST_CASE("http: a certificate the system CAs do not know is refused, never waved through", "[llm][http]") {
  TempDir dir;
  std::string cert = (dir / "cert.pem").string(), key = (dir / "key.pem").string();
  std::string make_cert = "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=127.0.0.1 -keyout " + key +
                          " -out " + cert + " >/dev/null 2>&1";
  if (std::system(make_cert.c_str()) != 0) {
    WARN("openssl is not installed: the TLS check is skipped");
    return;
  }
  FakeLlmServerProcess server(AR_FAKE_LLM_SERVER, dir / "s", {{"responses", {{{"text", "must not arrive"}}}}}, {},
                              {"--tls-cert", cert, "--tls-key", key});
  LlmSettings s = openai_settings();
  s.base_url = server.base_url("/v1", "https");
  LlmClientDeps deps;
  deps.sleeper = std::make_shared<RecordingSleeper>();
  auto client = make_llm_client(s, ApiKey{kTestKey, "OPENAI_API_KEY"}, test_prices(), deps);
  try {
    client->complete(hello_request());
    FAIL("a self-signed certificate was accepted");
  } catch (const LlmError& e) {
    CHECK(e.kind() == LlmErrorKind::bad_request);
    CHECK(std::string(e.what()).find("did not verify against the system CAs") != std::string::npos);
  }
  CHECK(server.records().empty());  // nothing was sent over the unverified connection
}

TEST_CASE("http: nothing listening is a connect error", "[llm][http]") {
  HttpRequest http;
  http.url = "http://127.0.0.1:" + std::to_string(free_port()) + "/v1/chat/completions";
  http.connect_timeout_s = 2;
  HttpResponse response = make_curl_transport()->send(http);
  CHECK(response.error == TransportError::connect);
  CHECK_FALSE(response.error_detail.empty());
}

TEST_CASE("http: probe_endpoint lists the models, and says when the key is wrong", "[llm][http]") {
  TempDir dir;
  FakeLlmServerProcess server(AR_FAKE_LLM_SERVER, dir / "s", {{"responses", json::array()}, {"models", {"gpt-4.1", "o3"}}},
                              {{"FAKE_LLM_EXPECT_KEY", kTestKey}});
  LlmSettings s = openai_settings("gpt-4.1");
  s.base_url = server.base_url("/v1");
  ProbeResult ok = probe_endpoint(s, ApiKey{kTestKey, "OPENAI_API_KEY"});
  CHECK(ok.ok);
  CHECK(ok.model_listed);
  CHECK(ok.message == server.base_url("/v1/models") + ": 200, 2 models, gpt-4.1 listed");

  s.model = "gpt-9";
  ProbeResult unlisted = probe_endpoint(s, ApiKey{kTestKey, "OPENAI_API_KEY"});
  CHECK(unlisted.ok);
  CHECK_FALSE(unlisted.model_listed);
  CHECK(unlisted.message.find("gpt-9 not listed") != std::string::npos);

  ProbeResult wrong = probe_endpoint(s, ApiKey{"sk-wrong-key-1234567890", "OPENAI_API_KEY"});
  CHECK_FALSE(wrong.ok);
  CHECK(wrong.http_status == 401);
  CHECK(wrong.message.find("the API key was rejected") != std::string::npos);
  CHECK(wrong.message.find("sk-wrong") == std::string::npos);

  LlmSettings a = anthropic_settings();
  a.base_url = server.base_url();
  a.model = "o3";
  ProbeResult anthropic = probe_endpoint(a, ApiKey{kTestKey, "ANTHROPIC_API_KEY"});
  CHECK(anthropic.ok);
  CHECK(anthropic.model_listed);
  auto records = server.records();
  REQUIRE(records.size() == 4);
  CHECK(records[3]["path"] == "/v1/models");
  CHECK(records[3]["headers"]["anthropic-version"] == "2023-06-01");
  CHECK(server.record_text().find(kTestKey) == std::string::npos);

  s.base_url = "http://127.0.0.1:" + std::to_string(free_port()) + "/v1";
  ProbeResult down = probe_endpoint(s, ApiKey{});
  CHECK_FALSE(down.ok);
  CHECK(down.message.find("cannot connect") != std::string::npos);
}

}  // namespace
}  // namespace ar

#endif  // AR_FAKE_LLM_SERVER
