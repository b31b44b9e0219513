// The real HttpTransport. The multi interface is driven by hand so that the
// cancel flag and the idle timeout are checked every 100 ms, whatever the
// network does; libcurl enforces the connect and total timeouts itself.
#include <curl/curl.h>
#include <signal.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <mutex>

#include "autoresearch/llm/http_transport.h"

namespace ar {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaxCollectedBody = 64u << 20;

struct Transfer {
  const HttpRequest* request = nullptr;
  HttpResponse* response = nullptr;
  CURL* easy = nullptr;
  Clock::time_point last_activity;
  bool aborted = false;  // on_body said stop
};

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t n = size * count;
  t->last_activity = Clock::now();
  std::string line(data, n);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  if (line.rfind("HTTP/", 0) == 0) {
    t->response->headers.clear();  // a new status line: 100 Continue, then the answer
    return n;
  }
  size_t colon = line.find(':');
  if (colon == std::string::npos) return n;
  std::string name = line.substr(0, colon);
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  size_t value_start = line.find_first_not_of(" \t", colon + 1);
  t->response->headers[name] = value_start == std::string::npos ? "" : line.substr(value_start);
  return n;
}

size_t on_write(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t n = size * count;
  t->last_activity = Clock::now();
  long status = 0;
  curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
  if (t->request->on_body && status >= 200 && status < 300) {
    if (!t->request->on_body(std::string_view(data, n))) {
      t->aborted = true;
      return 0;  // makes libcurl stop with CURLE_WRITE_ERROR
    }
    return n;
  }
  if (t->response->body.size() + n > kMaxCollectedBody) {
    t->aborted = true;
    return 0;
  }
  t->response->body.append(data, n);
  return n;
}

TransportError map_result(CURLcode code, CURL* easy, bool aborted) {
  switch (code) {
    case CURLE_OK: return TransportError::none;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
      return TransportError::connect;
    case CURLE_OPERATION_TIMEDOUT: {
      double connected_after = 0;
      curl_easy_getinfo(easy, CURLINFO_CONNECT_TIME, &connected_after);
      return connected_after > 0 ? TransportError::timeout : TransportError::connect;
    }
    case CURLE_SSL_CONNECT_ERROR: return TransportError::tls;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
      return TransportError::tls_verify;
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return TransportError::incomplete;
    case CURLE_WRITE_ERROR: return aborted ? TransportError::aborted : TransportError::other;
    default: return TransportError::other;
  }
}

long to_ms(double seconds) { return static_cast<long>(std::max(1.0, seconds * 1000.0)); }

class CurlTransport : public HttpTransport {
 public:
  CurlTransport() {
    static std::once_flag once;
    std::call_once(once, [] {
      curl_global_init(CURL_GLOBAL_DEFAULT);
      // With CURLOPT_NOSIGNAL (needed with threads) libcurl no longer shields
      // us from SIGPIPE, and a TLS write to a reset connection raises it. The
      // driver ignores SIGPIPE anyway (util/process_group does the same).
      signal(SIGPIPE, SIG_IGN);
    });
  }

  HttpResponse send(const HttpRequest& request) override {
    HttpResponse response;
    auto start = Clock::now();
    CURL* easy = curl_easy_init();
    CURLM* multi = curl_multi_init();
    if (!easy || !multi) {
      if (easy) curl_easy_cleanup(easy);
      if (multi) curl_multi_cleanup(multi);
      response.error = TransportError::other;
      response.error_detail = "libcurl could not start a transfer";
      return response;
    }
    Transfer t{&request, &response, easy, start, false};
    char error_buffer[CURL_ERROR_SIZE] = {0};
    curl_slist* headers = nullptr;
    for (const auto& [name, value] : request.headers) {
      headers = curl_slist_append(headers, (name + ": " + value).c_str());
    }
    headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip for big prompts

    curl_easy_setopt(easy, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
#if LIBCURL_VERSION_NUM >= 0x075500  // 7.85
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);  // a redirect comes back as a 3xx
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, to_ms(request.connect_timeout_s));
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, to_ms(request.total_timeout_s));
    curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);  // long answers over idle-dropping networks
    curl_easy_setopt(easy, CURLOPT_USERAGENT, "autoresearch");
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error_buffer);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &t);
    if (request.method == "GET") {
      curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
    } else {
      curl_easy_setopt(easy, CURLOPT_POST, 1L);
      curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    }
    // TLS: libcurl verifies the peer and the host name against the system CAs
    // by default; nothing here may turn that off.

    curl_multi_add_handle(multi, easy);
    TransportError stopped = TransportError::none;
    int running = 1;
    while (running) {
      if (curl_multi_perform(multi, &running) != CURLM_OK) {
        stopped = TransportError::other;
        break;
      }
      if (!running) break;
      if (request.cancel && request.cancel->load()) {
        stopped = TransportError::cancelled;
        break;
      }
      if (request.idle_timeout_s > 0 &&
          std::chrono::duration<double>(Clock::now() - t.last_activity).count() > request.idle_timeout_s) {
        stopped = TransportError::idle_timeout;
        break;
      }
      curl_multi_poll(multi, nullptr, 0, 100, nullptr);
    }

    CURLcode result = CURLE_OK;
    int queued = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &queued)) {
      if (msg->msg == CURLMSG_DONE && msg->easy_handle == easy) result = msg->data.result;
    }
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    response.status = static_cast<int>(status);
    if (stopped != TransportError::none) {
      response.error = stopped;
      response.error_detail = stopped == TransportError::cancelled ? "cancelled" : "";
    } else {
      response.error = map_result(result, easy, t.aborted);
      if (response.error != TransportError::none) {
        response.error_detail = error_buffer[0] ? error_buffer : curl_easy_strerror(result);
      }
    }
    curl_multi_remove_handle(multi, easy);
    curl_slist_free_all(headers);
    curl_easy_cleanup(easy);
    curl_multi_cleanup(multi);
    response.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return response;
  }
};

}  // namespace

std::string_view to_string(TransportError error) {
  switch (error) {
    case TransportError::none: return "none";
    case TransportError::connect: return "connect";
    case TransportError::tls: return "tls";
    case TransportError::tls_verify: return "tls_verify";
    case TransportError::timeout: return "timeout";
    case TransportError::idle_timeout: return "idle_timeout";
    case TransportError::incomplete: return "incomplete";
    case TransportError::cancelled: return "cancelled";
    case TransportError::aborted: return "aborted";
    case TransportError::other: return "other";
  }
  return "other";
}

std::string HttpResponse::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? "" : it->second;
}

std::shared_ptr<HttpTransport> make_curl_transport() { return std::make_shared<CurlTransport>(); }

}  // namespace ar
