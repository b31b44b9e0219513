#pragma once
// Fakes for the LLM client's seams: a transport that answers from a script
// (streamed bodies fed in chosen pieces, down to one byte at a time) and a
// sleeper that records the waits instead of sleeping.
#include <algorithm>
#include <atomic>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "autoresearch/llm/llm_client.h"

namespace ar {

struct ScriptedHttp {
  int status = 200;
  std::map<std::string, std::string> headers;
  std::string body;
  TransportError error = TransportError::none;
  std::string error_detail;
  size_t piece = 0;  // streamed in pieces of this many bytes; 0: all at once
};

inline ScriptedHttp http_raw(int status, const std::string& content_type, std::string body) {
  ScriptedHttp r;
  r.status = status;
  if (!content_type.empty()) r.headers["content-type"] = content_type;
  r.body = std::move(body);
  return r;
}

inline ScriptedHttp http_json(int status, std::string body, std::map<std::string, std::string> headers = {}) {
  ScriptedHttp r = http_raw(status, "application/json", std::move(body));
  for (auto& [name, value] : headers) r.headers[name] = value;
  return r;
}

inline ScriptedHttp http_sse(std::string body, size_t piece = 1) {
  ScriptedHttp r = http_raw(200, "text/event-stream", std::move(body));
  r.piece = piece;
  return r;
}

inline ScriptedHttp http_failure(TransportError error, std::string detail = "") {
  ScriptedHttp r;
  r.status = 0;
  r.error = error;
  r.error_detail = std::move(detail);
  return r;
}

class ScriptedTransport : public HttpTransport {
 public:
  explicit ScriptedTransport(std::vector<ScriptedHttp> script) : script_(script.begin(), script.end()) {}

  HttpResponse send(const HttpRequest& request) override {
    requests.push_back(request);
    HttpResponse response;
    if (script_.empty()) {
      response.error = TransportError::connect;
      response.error_detail = "the scripted transport has no more answers";
      return response;
    }
    ScriptedHttp s = script_.front();
    script_.pop_front();
    response.status = s.status;
    response.headers = s.headers;
    response.error = s.error;
    response.error_detail = s.error_detail;
    bool streamed = request.on_body && s.status >= 200 && s.status < 300;
    if (!streamed) {
      response.body = s.body;
      return response;
    }
    size_t piece = s.piece == 0 ? std::max<size_t>(1, s.body.size()) : s.piece;
    for (size_t at = 0; at < s.body.size(); at += piece) {
      if (!request.on_body(std::string_view(s.body).substr(at, piece))) {
        response.error = TransportError::aborted;
        break;
      }
    }
    return response;
  }

  std::vector<HttpRequest> requests;
  size_t left() const { return script_.size(); }

 private:
  std::deque<ScriptedHttp> script_;
};

class RecordingSleeper : public Sleeper {
 public:
  bool sleep_for(double seconds, const std::atomic<bool>* cancel) override {
    waits.push_back(seconds);
    if (cancel_on_wait > 0 && static_cast<int>(waits.size()) == cancel_on_wait && flag) flag->store(true);
    return !(cancel && cancel->load());
  }
  std::vector<double> waits;
  int cancel_on_wait = 0;              // sets *flag during this (1-based) wait, as Ctrl-C would
  std::atomic<bool>* flag = nullptr;
};

}  // namespace ar
