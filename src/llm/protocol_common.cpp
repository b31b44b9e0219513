#include <sstream>

#include "protocol.h"

namespace ar {

std::unique_ptr<Protocol> make_protocol(LlmProvider provider) {
  return provider == LlmProvider::anthropic ? make_anthropic_protocol() : make_openai_protocol();
}

bool for_each_json_payload(const std::string& data,
                           const std::function<void(const nlohmann::json&)>& fn) {
  nlohmann::json whole = nlohmann::json::parse(data, nullptr, false);
  if (!whole.is_discarded()) {
    fn(whole);
    return true;
  }
  // Several data lines in one event: the SSE rules join them with '\n'. Both
  // providers send one JSON value per event, so a join that does not parse is
  // one value per line from a server that left out the blank lines.
  std::vector<nlohmann::json> values;
  std::istringstream lines(data);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    nlohmann::json value = nlohmann::json::parse(line, nullptr, false);
    if (value.is_discarded()) return false;
    values.push_back(std::move(value));
  }
  if (values.empty()) return false;
  for (const auto& value : values) fn(value);
  return true;
}

int64_t json_int(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return 0;
  auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return 0;
  return it->is_number_integer() ? it->get<int64_t>() : static_cast<int64_t>(it->get<double>());
}

std::string json_string(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

ProviderError provider_error_from(const nlohmann::json& error) {
  ProviderError e;
  if (error.is_string()) {
    e.present = true;
    e.message = error.get<std::string>();
    return e;
  }
  if (!error.is_object()) return e;
  e.present = true;
  e.type = json_string(error, "type");
  e.message = json_string(error, "message");
  if (auto code = error.find("code"); code != error.end()) {
    if (code->is_string()) e.code = code->get<std::string>();
    else if (code->is_number()) e.code = code->dump();
  }
  // Anthropic puts the reason of some 429s in error.details.error_code
  // (e.g. enforced_spend_limit_reached).
  if (e.code.empty()) {
    if (auto details = error.find("details"); details != error.end()) {
      e.code = json_string(*details, "error_code");
    }
  }
  return e;
}

ProviderError parse_error_body(const std::string& body) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return {};
  if (auto error = j.find("error"); error != j.end()) return provider_error_from(*error);
  if (j.contains("message") || j.contains("detail")) {  // vLLM, FastAPI servers
    ProviderError e = provider_error_from(j);
    if (auto detail = j.find("detail"); e.message.empty() && detail != j.end()) {
      e.message = detail->is_string() ? detail->get<std::string>() : detail->dump();
    }
    return e;
  }
  return {};
}

}  // namespace ar
