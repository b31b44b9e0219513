#pragma once
// HTTP behind one small interface, so the LLM client's retry, parsing and error
// logic test against a scripted fake without a network, and the real libcurl
// transport tests against a loopback server.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ar {

// How a transfer failed before a complete HTTP answer arrived. A transport
// error is a value, never an exception: the caller decides whether to retry.
enum class TransportError {
  none,
  connect,       // DNS, refused, unreachable, connect timeout
  tls,           // handshake failed (may be transient)
  tls_verify,    // the certificate did not verify against the system CAs (not transient)
  timeout,       // no complete answer within the total timeout of the attempt
  idle_timeout,  // no byte for idle_timeout_s while streaming
  incomplete,    // the connection closed or reset before the body was complete
  cancelled,     // the cancel flag was set
  aborted,       // the body callback asked to stop
  other,
};
std::string_view to_string(TransportError error);

struct HttpRequest {
  std::string method = "POST";  // "POST" or "GET"
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;  // name, value
  std::string body;
  double connect_timeout_s = 10;
  double total_timeout_s = 600;  // per attempt, connect included
  double idle_timeout_s = 0;     // 0: none. No byte of body for this long: idle_timeout.
  // Polled (about every 100 ms) during the transfer; when it becomes true the
  // transfer stops with TransportError::cancelled. Lets Ctrl-C abort a call.
  const std::atomic<bool>* cancel = nullptr;
  // When set, the body of a 2xx answer goes to this callback as it arrives
  // (so SSE is parsed incrementally) and HttpResponse::body stays empty; the
  // body of any other status is collected into HttpResponse::body, since an
  // error body is small and parsed whole. Return false to stop the transfer
  // (TransportError::aborted).
  std::function<bool(std::string_view chunk)> on_body;
};

struct HttpResponse {
  int status = 0;                              // 0 when no status line arrived
  std::map<std::string, std::string> headers;  // names lower-cased; last value wins
  std::string body;                            // see HttpRequest::on_body
  TransportError error = TransportError::none;
  std::string error_detail;                    // the transport's own words, for messages
  double seconds = 0;                          // wall time of the transfer

  bool ok() const { return error == TransportError::none; }
  // The header's value, or "" when absent. `name` must be lower-case.
  std::string header(const std::string& name) const;
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // One transfer, no retries. Never throws for network conditions: they come
  // back as HttpResponse::error.
  virtual HttpResponse send(const HttpRequest& request) = 0;
};

// libcurl: TLS verified against the system CAs (libcurl's default, never
// turned off), no redirects followed (a 3xx comes back as it is), HTTP/1.1 or
// HTTP/2 as negotiated. Thread-compatible: one transfer per call.
std::shared_ptr<HttpTransport> make_curl_transport();

}  // namespace ar
