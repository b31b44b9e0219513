// fake_llm_server: a loopback stand-in for an LLM endpoint, for unit and
// end-to-end tests. It speaks both APIs by path, answers requests from a
// script in order, and misbehaves on cue.
//
//   fake_llm_server --script FILE.json [--port-file FILE] [--record FILE.jsonl]
//                   [--host 127.0.0.1] [--port 0] [--tls-cert FILE --tls-key FILE]
//
// --tls-cert/--tls-key serve HTTPS (where cpp-httplib has OpenSSL), so a test
// can check that a certificate the system CAs do not know is refused.
// It binds the host (port 0: an ephemeral port), writes the port number to
// --port-file once it listens, and serves until SIGTERM or SIGINT (exit 0).
// Paths: POST /v1/chat/completions and /chat/completions (OpenAI shape),
// POST /v1/messages (Anthropic shape), GET /v1/models and /models (a model
// list, Anthropic-shaped when the request has anthropic-version; 401 when
// FAKE_LLM_EXPECT_KEY is set and the key does not match).
//
// Script: {"responses": [...], "after_last": "repeat_last" | "error_500",
//          "models": ["id", ...]}   (defaults: repeat_last, ["fake-model"])
// Each POST takes the next response; each response is an object with:
//   "text"                  the answer text, or
//   "blocks"                [{"type": "thinking", "thinking": "..."}, {"type": "text", "text": "..."},
//                            {"type": "redacted_thinking"}]: Anthropic blocks; for OpenAI thinking
//                            becomes reasoning_content (deltas), text the content
//   "finish"                "stop" | "length" (Anthropic end_turn / max_tokens); other values pass through
//   "usage"                 {"input": N, "output": M, "cached": K}  (default: estimated from sizes)
//   "model"                 the model reported (default: the one requested)
//   "status"                HTTP status (default 200); "headers": {"retry-after": "1", ...}
//   "error"                 {"type", "code", "message"} rendered in the provider's error shape
//   "raw_body"              sent verbatim with "status" and "content_type" (default text/plain)
//   "delay_ms"              wait before answering
//   "stall_after_bytes"     send that many bytes of the body, then hold the connection silent
//   "truncate_after_bytes"  send that many bytes, then close the connection
//   "event_delay_ms"        streaming: wait between events
//   "sse_error"             streaming: {"type", "message", "code"} as an error event after the
//                           first block, then the stream ends (no [DONE] / message_stop)
//   "crlf"                  streaming: end lines with CRLF
//   "content_as_parts"      OpenAI non-streaming: content as an array of text parts
// A request with "stream": true gets the provider's SSE event sequence (OpenAI
// chunks, the usage chunk when stream_options.include_usage, data: [DONE];
// Anthropic message_start ... message_stop with ping events); otherwise JSON.
//
// --record: one JSON line per request, flushed: time, method, path, the parsed
// body, a few headers (anthropic-version, content-type, accept, user-agent),
// "auth_header": "authorization" | "x-api-key" | null, and "auth_matches":
// true | false against FAKE_LLM_EXPECT_KEY, null when it is unset. Never the key.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "fake_llm_payloads.h"

namespace {

using nlohmann::json;
using fake_llm::Api;

std::atomic<bool> g_stopping{false};

struct Options {
  std::string script, port_file, record, host = "127.0.0.1", tls_cert, tls_key;
  int port = 0;
};

[[noreturn]] void die(const std::string& message, int code = 2) {
  std::cerr << "fake_llm_server: " << message << "\n";
  std::exit(code);
}

Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die(arg + ": expected a value");
      return argv[++i];
    };
    if (arg == "--script") o.script = value();
    else if (arg == "--port-file") o.port_file = value();
    else if (arg == "--record") o.record = value();
    else if (arg == "--host") o.host = value();
    else if (arg == "--port") o.port = std::atoi(value().c_str());
    else if (arg == "--tls-cert") o.tls_cert = value();
    else if (arg == "--tls-key") o.tls_key = value();
    else die("unknown argument '" + arg + "' (expected --script, --port-file, --record, --host, --port, --tls-cert, --tls-key)");
  }
  if (o.script.empty()) die("--script FILE.json is required");
  if (o.tls_cert.empty() != o.tls_key.empty()) die("--tls-cert and --tls-key go together");
  return o;
}

// Sleeps in small steps so SIGTERM ends a delay or a stall at once.
void sleep_unless_stopping(std::chrono::milliseconds total) {
  auto until = std::chrono::steady_clock::now() + total;
  while (!g_stopping && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

class Script {
 public:
  explicit Script(const std::string& path) {
    std::ifstream in(path);
    if (!in) die(path + ": cannot read the script");
    json j = json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.is_object()) die(path + ": not a JSON object");
    if (!j.contains("responses") || !j["responses"].is_array()) die(path + ": responses: expected an array");
    responses_ = j["responses"];
    for (size_t i = 0; i < responses_.size(); ++i) {
      std::string problem = fake_llm::check_response(responses_[i]);
      if (!problem.empty()) die(path + ": responses[" + std::to_string(i) + "]." + problem);
    }
    after_last_ = j.value("after_last", std::string("repeat_last"));
    if (after_last_ != "repeat_last" && after_last_ != "error_500") {
      die(path + ": after_last: expected \"repeat_last\" or \"error_500\"");
    }
    models_ = j.value("models", json::array({"fake-model"}));
    if (!models_.is_array()) die(path + ": models: expected an array of model ids");
  }

  // The next scripted response and its serial number (1 for the first request).
  std::pair<json, int> next() {
    std::lock_guard<std::mutex> lock(mutex_);
    int serial = ++served_;
    size_t i = static_cast<size_t>(serial - 1);
    if (i < responses_.size()) return {responses_[i], serial};
    if (after_last_ == "repeat_last" && !responses_.empty()) return {responses_.back(), serial};
    return {json{{"status", 500}, {"error", {{"type", "api_error"}, {"message", "the fake server's script is used up"}}}},
            serial};
  }

  const json& models() const { return models_; }

 private:
  std::mutex mutex_;
  json responses_;
  std::string after_last_;
  json models_;
  int served_ = 0;
};

struct AuthCheck {
  json header = nullptr;   // "authorization" | "x-api-key" | null
  json matches = nullptr;  // true | false | null (no FAKE_LLM_EXPECT_KEY)
};

AuthCheck check_auth(const httplib::Request& req) {
  AuthCheck a;
  const char* expected = std::getenv("FAKE_LLM_EXPECT_KEY");
  std::string given;
  if (req.has_header("Authorization")) {
    a.header = "authorization";
    given = req.get_header_value("Authorization");
    const std::string bearer = "Bearer ";
    given = given.rfind(bearer, 0) == 0 ? given.substr(bearer.size()) : "\n(not a bearer token)";
  } else if (req.has_header("x-api-key")) {
    a.header = "x-api-key";
    given = req.get_header_value("x-api-key");
  }
  if (expected) a.matches = !a.header.is_null() && given == expected;
  return a;
}

class Recorder {
 public:
  explicit Recorder(const std::string& path) {
    if (path.empty()) return;
    file_ = std::fopen(path.c_str(), "a");
    if (!file_) die(path + ": cannot open the record file");
  }
  ~Recorder() {
    if (file_) std::fclose(file_);
  }

  void record(const httplib::Request& req, const AuthCheck& auth, int serial) {
    if (!file_) return;
    json line = {{"time", now_iso8601()}, {"method", req.method}, {"path", req.path},
                 {"auth_header", auth.header}, {"auth_matches", auth.matches}};
    if (serial > 0) line["response_serial"] = serial;
    json body = json::parse(req.body, nullptr, false);
    line["body"] = body.is_discarded() ? json(nullptr) : body;
    if (body.is_discarded() && !req.body.empty()) line["body_raw"] = req.body.substr(0, 4096);
    // Headers a test may check; the auth headers are never written.
    json headers = json::object();
    for (const char* name : {"anthropic-version", "content-type", "accept", "user-agent"}) {
      if (req.has_header(name)) headers[name] = req.get_header_value(name);
    }
    line["headers"] = headers;
    std::lock_guard<std::mutex> lock(mutex_);
    std::fputs((line.dump() + "\n").c_str(), file_);
    std::fflush(file_);
  }

 private:
  static std::string now_iso8601() {
    std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
  }

  std::FILE* file_ = nullptr;
  std::mutex mutex_;
};

// Sends `body` as the scripted response asks: whole, in events, stalled or cut.
void deliver(const json& response, const fake_llm::Rendered& r, bool event_stream, httplib::Response& res) {
  res.status = r.status;
  for (const auto& [name, value] : r.headers.items()) res.set_header(name.c_str(), value.get<std::string>());
  long long stall_at = response.value("stall_after_bytes", -1LL);
  long long cut_at = response.value("truncate_after_bytes", -1LL);
  int event_delay_ms = response.value("event_delay_ms", 0);
  if (!event_stream && stall_at < 0 && cut_at < 0) {
    res.set_content(r.body, r.content_type.c_str());
    return;
  }
  auto body = std::make_shared<std::string>(r.body);
  // The pieces written in one go: SSE events one at a time, so a client sees
  // them arrive separately; a whole body at once.
  auto pieces = std::make_shared<std::vector<std::string>>();
  if (event_stream) {
    std::string sep = body->find("\r\n\r\n") != std::string::npos ? "\r\n\r\n" : "\n\n";
    for (size_t at = 0; at < body->size();) {
      size_t end = body->find(sep, at);
      end = end == std::string::npos ? body->size() : end + sep.size();
      pieces->push_back(body->substr(at, end - at));
      at = end;
    }
  } else {
    pieces->push_back(*body);
  }
  auto write_pieces = [=](httplib::DataSink& sink) {
    long long sent = 0;
    for (const auto& piece : *pieces) {
      if (event_delay_ms > 0 && sent > 0) sleep_unless_stopping(std::chrono::milliseconds(event_delay_ms));
      long long limit = static_cast<long long>(piece.size());
      if (stall_at >= 0) limit = std::min(limit, std::max(0LL, stall_at - sent));
      if (cut_at >= 0) limit = std::min(limit, std::max(0LL, cut_at - sent));
      if (limit > 0 && !sink.write(piece.data(), static_cast<size_t>(limit))) return false;
      sent += limit;
      if (limit < static_cast<long long>(piece.size())) {
        if (cut_at >= 0 && sent >= cut_at) return false;  // close without finishing the body
        // A stall: hold the connection open until the client gives up or we stop.
        auto until = std::chrono::steady_clock::now() + std::chrono::minutes(5);
        while (!g_stopping && sink.is_writable() && std::chrono::steady_clock::now() < until) {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return false;
      }
    }
    return true;
  };
  if (event_stream) {
    res.set_chunked_content_provider(r.content_type.c_str(), [=](size_t, httplib::DataSink& sink) {
      if (!write_pieces(sink)) return false;
      sink.done();
      return true;
    });
  } else {
    res.set_content_provider(body->size(), r.content_type.c_str(), [=](size_t offset, size_t, httplib::DataSink& sink) {
      if (offset != 0) return true;  // written in one call below
      return write_pieces(sink);
    });
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options options = parse_args(argc, argv);
  Script script(options.script);
  Recorder recorder(options.record);

  // Signals go to one thread that stops the server; handlers never run on
  // the server's threads.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  std::unique_ptr<httplib::Server> server_owner;
  if (!options.tls_cert.empty()) {
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
    auto tls = std::make_unique<httplib::SSLServer>(options.tls_cert.c_str(), options.tls_key.c_str());
    if (!tls->is_valid()) die("cannot load --tls-cert / --tls-key", 1);
    server_owner = std::move(tls);
#else
    die("this build of cpp-httplib has no TLS support", 1);
#endif
  } else {
    server_owner = std::make_unique<httplib::Server>();
  }
  httplib::Server& server = *server_owner;
  server.new_task_queue = [] { return new httplib::ThreadPool(32); };

  auto answer = [&](Api api) {
    return [&, api](const httplib::Request& req, httplib::Response& res) {
      auto [response, serial] = script.next();
      recorder.record(req, check_auth(req), serial);
      json request = json::parse(req.body, nullptr, false);
      if (request.is_discarded()) request = nullptr;
      if (int delay = response.value("delay_ms", 0); delay > 0) {
        sleep_unless_stopping(std::chrono::milliseconds(delay));
      }
      fake_llm::Rendered rendered = fake_llm::render(api, response, request, serial);
      bool event_stream = rendered.content_type == "text/event-stream";
      deliver(response, rendered, event_stream, res);
    };
  };
  auto models = [&](const httplib::Request& req, httplib::Response& res) {
    AuthCheck auth = check_auth(req);
    recorder.record(req, auth, 0);
    Api api = req.has_header("anthropic-version") ? Api::anthropic : Api::openai;
    if (auth.matches == json(false)) {
      res.status = 401;
      std::string type = api == Api::openai ? "invalid_request_error" : "authentication_error";
      res.set_content(fake_llm::render_error(api, type, api == Api::openai ? "invalid_api_key" : "",
                                             "invalid x-api-key", 0),
                      "application/json");
      return;
    }
    res.set_content(fake_llm::render_models(api, script.models()), "application/json");
  };
  server.Post("/v1/chat/completions", answer(Api::openai));
  server.Post("/chat/completions", answer(Api::openai));
  server.Post("/v1/messages", answer(Api::anthropic));
  server.Get("/v1/models", models);
  server.Get("/models", models);

  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port(options.host);
    if (port < 0) die("cannot bind " + options.host, 1);
  } else if (!server.bind_to_port(options.host, port)) {
    die("cannot bind " + options.host + ":" + std::to_string(port), 1);
  }
  if (!options.port_file.empty()) {
    // Written whole (rename), so a reader never sees half a number.
    std::string tmp = options.port_file + ".tmp";
    std::ofstream(tmp) << port << "\n";
    if (std::rename(tmp.c_str(), options.port_file.c_str()) != 0) die(options.port_file + ": cannot write", 1);
  }

  std::thread stopper([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    g_stopping = true;
    server.stop();
  });
  server.listen_after_bind();
  if (!g_stopping) die("the server stopped unexpectedly", 1);
  stopper.join();
  return 0;
}
