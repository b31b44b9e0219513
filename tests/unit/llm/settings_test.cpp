#include <string>

#include "autoresearch/llm/llm_client.h"
#include "autoresearch/util/errors.h"
#include "catch.h"
#include "unit/llm/llm_rig.h"

namespace ar {
namespace {

TEST_CASE("settings: defaults as documented", "[llm][settings]") {
  LlmSettings s;
  CHECK(s.provider == LlmProvider::openai);
  CHECK(s.max_output_tokens == 8192);
  CHECK(s.stream);
  CHECK(s.connect_timeout_s == 10);
  CHECK(s.total_timeout_s == 600);
  CHECK(s.idle_timeout_s == 120);
  CHECK(s.max_attempts == 6);
  CHECK(s.backoff_initial_s == 1);
  CHECK(s.backoff_max_s == 60);
  CHECK(s.anthropic_version == "2023-06-01");
  CHECK_FALSE(s.temperature.has_value());
}

TEST_CASE("settings: spellings parse and print back", "[llm][settings]") {
  CHECK(parse_llm_provider("anthropic") == LlmProvider::anthropic);
  CHECK(parse_llm_provider("openai") == LlmProvider::openai);
  CHECK_FALSE(parse_llm_provider("gemini").has_value());
  for (auto f : {MaxTokensField::automatic, MaxTokensField::max_tokens, MaxTokensField::max_completion_tokens}) {
    CHECK(parse_max_tokens_field(to_string(f)) == f);
  }
  CHECK_FALSE(parse_max_tokens_field("tokens").has_value());
  CHECK(to_string(LlmErrorKind::bad_response) == "bad_response");
}

TEST_CASE("settings: base URLs and endpoint paths", "[llm][settings]") {
  LlmSettings s;
  CHECK(completion_url(s) == "https://api.openai.com/v1/chat/completions");
  s.base_url = "http://localhost:8000/v1//";
  CHECK(completion_url(s) == "http://localhost:8000/v1/chat/completions");
  s.provider = LlmProvider::anthropic;
  s.base_url = "";
  CHECK(completion_url(s) == "https://api.anthropic.com/v1/messages");
  s.base_url = "https://proxy.example/anthropic/v1";
  CHECK(completion_url(s) == "https://proxy.example/anthropic/v1/messages");
}

TEST_CASE("settings: bad values are refused with what to fix", "[llm][settings]") {
  auto problem = [](auto change) {
    LlmSettings s;
    s.model = "gpt-4.1";
    change(s);
    return validate_llm_settings(s);
  };
  CHECK(problem([](LlmSettings&) {}).empty());
  CHECK(problem([](LlmSettings& s) { s.model.clear(); }) == "the LLM model is not set: set --llm-model");
  CHECK(problem([](LlmSettings& s) { s.base_url = "localhost:8000"; }).find("--llm-base-url") != std::string::npos);
  CHECK(problem([](LlmSettings& s) { s.max_output_tokens = 0; }).find("--llm-max-output-tokens 0") != std::string::npos);
  CHECK(problem([](LlmSettings& s) { s.temperature = 3.5; }).find("--llm-temperature") != std::string::npos);
  CHECK_FALSE(problem([](LlmSettings& s) { s.total_timeout_s = 0; }).empty());
  CHECK_FALSE(problem([](LlmSettings& s) { s.max_attempts = 0; }).empty());
  CHECK_FALSE(problem([](LlmSettings& s) { s.backoff_max_s = 0.5; }).empty());

  LlmSettings bad;
  try {
    make_llm_client(bad, ApiKey{}, test_prices());
    FAIL("expected a usage error");
  } catch (const Fatal& e) {
    CHECK(e.code() == kExitUsage);
  }
}

}  // namespace
}  // namespace ar

TEST_CASE("whether an endpoint bills: by its host, unless the settings say") {
  ar::LlmSettings s;
  s.base_url = "http://10.0.0.5:4000/v1";   // a LiteLLM proxy on a private address
  CHECK_FALSE(ar::endpoint_bills(s));
  s.paid = true;                              // ...that forwards to a paid API
  CHECK(ar::endpoint_bills(s));
  s.base_url = "";
  s.paid.reset();
  CHECK(ar::endpoint_bills(s));               // the public API
  s.paid = false;
  CHECK_FALSE(ar::endpoint_bills(s));
}
