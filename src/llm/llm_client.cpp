// The one retry loop for both providers: build, send, read (streamed or whole),
// classify what went wrong, wait, try again; then usage and cost.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <random>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "autoresearch/llm/llm_client.h"
#include "autoresearch/util/errors.h"
#include "error_policy.h"
#include "protocol.h"
#include "sse_parser.h"

namespace ar {
namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr size_t kMaxAnswerBytes = 64u << 20;  // far above any max_tokens; stops a runaway stream
constexpr size_t kMaxRawCopy = 8u << 20;       // a streamed body kept whole, in case it is JSON
constexpr double kCharsPerToken = 3.0;         // on the high side for tokens, so budgets bind

double seconds_since(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

bool is_set(const std::atomic<bool>* flag) { return flag && flag->load(); }

LlmError cancelled(int attempts, const char* when = "") {
  return LlmError(LlmErrorKind::cancelled, std::string("the LLM call was cancelled") + when, 0, "", "", attempts);
}

class RealSleeper : public Sleeper {
 public:
  bool sleep_for(double seconds, const std::atomic<bool>* cancel) override {
    auto until = SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(
                                          std::chrono::duration<double>(std::max(0.0, seconds)));
    while (SteadyClock::now() < until) {
      if (is_set(cancel)) return false;
      SteadyClock::duration left = until - SteadyClock::now();
      std::this_thread::sleep_for(std::min<SteadyClock::duration>(left, std::chrono::milliseconds(50)));
    }
    return !is_set(cancel);
  }
};

Failure bad_response(std::string message) {
  Failure f;
  f.retryable = true;
  f.bad_response = true;
  f.kind = LlmErrorKind::bad_response;
  f.message = std::move(message);
  return f;
}

// A streamed body as it arrives: SSE events into the provider's decoder.
struct StreamReader {
  std::unique_ptr<StreamDecoder> decoder;
  SseParser parser;
  std::string raw;  // kept too, for a server that answered JSON although asked to stream
  size_t received = 0;

  void feed(std::string_view chunk) {
    received += chunk.size();
    if (raw.size() + chunk.size() <= kMaxRawCopy) raw.append(chunk);
    parser.feed(chunk, [&](const SseEvent& e) { decoder->on_event(e); });
  }
  void finish() {
    parser.finish([&](const SseEvent& e) { decoder->on_event(e); });
  }
};

// One attempt's outcome: an answer, or why not.
struct Attempt {
  std::optional<DecodedAnswer> answer;
  Failure failure;
  std::map<std::string, std::string> headers;
  double seconds = 0;
};

class HttpLlmClient : public LlmClient {
 public:
  HttpLlmClient(LlmSettings settings, ApiKey key, std::shared_ptr<const PriceTable> prices,
                LlmClientDeps deps)
      : settings_(std::move(settings)), key_(std::move(key)), prices_(std::move(prices)),
        transport_(deps.transport ? deps.transport : make_curl_transport()),
        sleeper_(deps.sleeper ? deps.sleeper : make_real_sleeper()),
        rng_(deps.jitter_seed ? deps.jitter_seed : std::random_device{}()),
        protocol_(make_protocol(settings_.provider)),
        url_(url_for_messages(completion_url(settings_))) {}

  const LlmSettings& settings() const override { return settings_; }

  LlmResponse complete(const LlmRequest& request) override {
    auto start = SteadyClock::now();
    Failure last;
    int bad_responses = 0;
    int attempt = 1;
    for (;; ++attempt) {
      if (is_set(request.cancel)) throw cancelled(attempt - 1);
      Attempt a = run_attempt(request, attempt);
      if (a.answer) return finish(request, *a.answer, a, attempt, start);
      last = a.failure;
      if (!last.retryable) {
        throw LlmError(last.kind, last.message, last.http_status, last.provider_type,
                       last.provider_code, attempt);
      }
      if (last.bad_response && ++bad_responses >= settings_.max_bad_response_attempts) break;
      if (attempt >= settings_.max_attempts) break;
      double wait = last.retry_after_s ? std::min(*last.retry_after_s, settings_.backoff_max_s)
                                       : backoff_delay(attempt, settings_.backoff_initial_s,
                                                       settings_.backoff_max_s, unit_(rng_));
      if (!sleeper_->sleep_for(wait, request.cancel)) throw cancelled(attempt, " while waiting to retry");
    }
    bool bad = last.bad_response;
    std::string what = bad ? fmt::format("{} did not answer with the expected JSON", url_)
                           : fmt::format("the LLM endpoint {} did not answer", url_);
    throw LlmError(bad ? LlmErrorKind::bad_response : LlmErrorKind::unavailable,
                   fmt::format("{} after {} attempt{} over {:.0f} s; the last: {}", what, attempt,
                               attempt == 1 ? "" : "s", seconds_since(start), last.message),
                   last.http_status, last.provider_type, last.provider_code, attempt);
  }

 private:
  Attempt run_attempt(const LlmRequest& request, int attempt) {
    HttpRequest http = protocol_->build(settings_, request, key_);
    http.connect_timeout_s = settings_.connect_timeout_s;
    http.total_timeout_s = settings_.total_timeout_s;
    http.cancel = request.cancel;
    std::optional<StreamReader> stream;
    if (settings_.stream) {
      stream.emplace();
      stream->decoder = protocol_->stream_decoder();
      http.idle_timeout_s = settings_.idle_timeout_s;
      http.on_body = [&](std::string_view chunk) {
        stream->feed(chunk);
        if (request.on_progress) {
          const DecodedAnswer& so_far = stream->decoder->answer();
          request.on_progress({so_far.text.size(), so_far.reasoning_chars, attempt});
        }
        return stream->received <= kMaxAnswerBytes;
      };
    }

    HttpResponse response = transport_->send(http);
    if (response.error == TransportError::cancelled) throw cancelled(attempt);
    Attempt a;
    a.headers = response.headers;
    a.seconds = response.seconds;
    ErrorContext ctx{settings_, key_, url_};
    bool success = response.status >= 200 && response.status < 300;
    if (stream && success) {
      stream->finish();
      // An error event explains a stream that then broke off better than the break does.
      if (stream->decoder->answer().stream_error.present) {
        a.failure = classify_stream_error(ctx, stream->decoder->answer().stream_error);
        return a;
      }
    }
    if (response.error == TransportError::aborted) {
      a.failure = bad_response(fmt::format("the answer from {} exceeded {} MB and was cut off", url_,
                                           kMaxAnswerBytes >> 20));
      return a;
    }
    if (!response.ok()) {
      a.failure = classify_transport_error(ctx, response);
      return a;
    }
    if (!success) {
      a.failure = classify_http_error(ctx, response.status, protocol_->parse_error(response.body),
                                      response.headers, std::time(nullptr));
      return a;
    }
    bool json_body = response.header("content-type").find("application/json") != std::string::npos;
    if (stream && !json_body) {
      read_stream(*stream, a);
    } else {
      read_whole(stream ? stream->raw : response.body, response, ctx, a);
    }
    return a;
  }

  void read_stream(const StreamReader& stream, Attempt& a) const {
    const DecodedAnswer& answer = stream.decoder->answer();
    if (!answer.malformed.empty()) {
      a.failure = bad_response(fmt::format("{} sent a stream not in the provider's format: {}", url_,
                                           redact_secrets(answer.malformed, key_.value)));
    } else if (!answer.complete) {
      // A proxy or the server broke off: as good as a dropped connection.
      a.failure.retryable = true;
      a.failure.kind = LlmErrorKind::unavailable;
      a.failure.message = fmt::format("the stream from {} ended after {} bytes without {}", url_, stream.received,
                                      settings_.provider == LlmProvider::anthropic ? "message_stop" : "data: [DONE]");
    } else {
      a.answer = answer;
    }
  }

  void read_whole(const std::string& body, const HttpResponse& response, const ErrorContext& ctx,
                  Attempt& a) const {
    DecodedAnswer answer;
    try {
      answer = protocol_->parse_body(body);
    } catch (const BadBody& e) {
      std::string start = redact_secrets(body, key_.value).substr(0, 80);
      std::replace_if(start.begin(), start.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
      a.failure = bad_response(fmt::format("{} answered {} but {} (content-type '{}', body starts '{}')", url_,
                                           response.status, e.what(), response.header("content-type"), start));
      return;
    }
    if (answer.stream_error.present) {
      a.failure = classify_stream_error(ctx, answer.stream_error);  // a 200 that carries an error
      return;
    }
    a.answer = std::move(answer);
  }

  LlmResponse finish(const LlmRequest& request, const DecodedAnswer& answer, const Attempt& a,
                     int attempt, SteadyClock::time_point start) const {
    LlmResponse r;
    r.text = answer.text;
    r.raw_finish_reason = answer.raw_finish;
    r.finish_reason = protocol_->normalise_finish(answer);
    r.truncated = r.finish_reason == "length";
    r.reasoning_chars = answer.reasoning_chars;
    r.usage = answer.usage_seen ? answer.usage : estimate_usage(request, answer);
    r.attempts = attempt;
    r.latency_s = seconds_since(start);
    r.last_attempt_s = a.seconds;
    r.model = answer.model.empty() ? settings_.model : answer.model;
    for (const char* name : {"x-request-id", "request-id"}) {
      if (auto it = a.headers.find(name); it != a.headers.end() && !it->second.empty()) {
        r.request_id = it->second;
        break;
      }
    }
    CallCost cost = call_cost(*prices_, {answer.model, settings_.model}, endpoint_bills(settings_), r.usage);
    r.cost_usd = cost.usd;
    r.cost_estimated = cost.estimated;
    r.cost_basis = cost.basis;
    return r;
  }

  static LlmUsage estimate_usage(const LlmRequest& request, const DecodedAnswer& answer) {
    size_t input_chars = request.system.size();
    for (const auto& m : request.messages) input_chars += m.content.size();
    size_t output_chars = answer.text.size() + answer.reasoning_chars;
    LlmUsage u;
    u.estimated = true;
    u.input_tokens = static_cast<int64_t>(std::ceil(input_chars / kCharsPerToken));
    u.output_tokens = static_cast<int64_t>(std::ceil(output_chars / kCharsPerToken));
    return u;
  }

  LlmSettings settings_;
  ApiKey key_;
  std::shared_ptr<const PriceTable> prices_;
  std::shared_ptr<HttpTransport> transport_;
  std::shared_ptr<Sleeper> sleeper_;
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> unit_{0.0, 1.0};
  std::unique_ptr<Protocol> protocol_;
  std::string url_;  // as it may appear in messages
};

}  // namespace

std::shared_ptr<Sleeper> make_real_sleeper() { return std::make_shared<RealSleeper>(); }

std::unique_ptr<LlmClient> make_llm_client(const LlmSettings& settings, ApiKey key,
                                           std::shared_ptr<const PriceTable> prices, LlmClientDeps deps) {
  if (std::string problem = validate_llm_settings(settings); !problem.empty()) throw usage_error(problem);
  // Without prices a paid call would cost 0 and no budget would bind.
  if (!prices) throw std::invalid_argument("make_llm_client: a price table is required");
  return std::make_unique<HttpLlmClient>(settings, std::move(key), std::move(prices), std::move(deps));
}

}  // namespace ar
