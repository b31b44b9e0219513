// doctor's endpoint check: list the models, one attempt, short timeouts.
#include <ctime>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "autoresearch/llm/llm_client.h"
#include "error_policy.h"
#include "protocol.h"

namespace ar {

ProbeResult probe_endpoint(const LlmSettings& settings, const ApiKey& key,
                           std::shared_ptr<HttpTransport> transport) {
  if (!transport) transport = make_curl_transport();
  std::unique_ptr<Protocol> protocol = make_protocol(settings.provider);
  HttpRequest http = protocol->build_models_probe(settings, key);
  http.connect_timeout_s = std::min(settings.connect_timeout_s, 5.0);
  http.total_timeout_s = 15;
  std::string url = url_for_messages(http.url);
  ErrorContext ctx{settings, key, url};

  ProbeResult result;
  HttpResponse response = transport->send(http);
  result.http_status = response.status;
  if (!response.ok()) {
    result.message = url + ": " + classify_transport_error(ctx, response).message;
    return result;
  }
  if (response.status < 200 || response.status >= 300) {
    Failure f = classify_http_error(ctx, response.status, protocol->parse_error(response.body),
                                    response.headers, std::time(nullptr));
    result.message = f.message;
    return result;
  }
  // Both list shapes: {"data": [{"id": ...}, ...]} (OpenAI, Anthropic, vLLM,
  // llama.cpp, Ollama's /v1/models).
  nlohmann::json j = nlohmann::json::parse(response.body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("data") || !j["data"].is_array()) {
    result.ok = true;  // it answers, with the key; some servers simply have no model list
    result.message = fmt::format("{}: {}, but no model list in the answer", url, response.status);
    return result;
  }
  const auto& data = j["data"];
  for (const auto& m : data) {
    std::string id = json_string(m, "id");
    if (!id.empty() && id == settings.model) result.model_listed = true;
  }
  result.ok = true;
  std::string model_part = settings.model.empty()
                               ? ""
                               : fmt::format(", {} {}", settings.model,
                                             result.model_listed ? "listed" : "not listed (check --llm-model)");
  result.message = fmt::format("{}: {}, {} model{}{}", url, response.status, data.size(),
                               data.size() == 1 ? "" : "s", model_part);
  return result;
}

}  // namespace ar
