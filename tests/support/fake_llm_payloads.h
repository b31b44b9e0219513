#pragma once
// The fake LLM server's answers, rendered in each provider's documented shape:
// OpenAI chat.completion / chat.completion.chunk SSE ending in "data: [DONE]",
// Anthropic message / the message_start ... message_stop event sequence, and
// both error shapes. No HTTP here: fake_llm_server.cpp delivers the bytes.
#include <string>

#include <nlohmann/json.hpp>

namespace fake_llm {

enum class Api { openai, anthropic };

struct Rendered {
  int status = 200;
  std::string content_type;
  std::string body;
  nlohmann::json headers = nlohmann::json::object();  // extra response headers
};

// Checks one scripted response; returns "" or what is wrong ("status: expected an integer").
std::string check_response(const nlohmann::json& response);

// `response`: one entry of the script's "responses"; `request`: the parsed
// request body (null when it was not JSON); `serial`: 1 for the first request.
Rendered render(Api api, const nlohmann::json& response, const nlohmann::json& request, int serial);

// The model list of GET /models (OpenAI shape) or /v1/models (Anthropic shape).
std::string render_models(Api api, const nlohmann::json& model_ids);

// An error body in the provider's shape.
std::string render_error(Api api, const std::string& type, const std::string& code,
                         const std::string& message, int serial);

}  // namespace fake_llm
