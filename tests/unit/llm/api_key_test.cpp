#include "autoresearch/llm/api_key.h"

#include <map>
#include <string>

#include "autoresearch/llm/llm_client.h"
#include "catch.h"

namespace ar {
namespace {

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST_CASE("keys: AUTORESEARCH_LLM_API_KEY first, then the provider's own variable", "[llm][keys]") {
  auto both = env_of({{"AUTORESEARCH_LLM_API_KEY", "general"}, {"OPENAI_API_KEY", "oa"}, {"ANTHROPIC_API_KEY", "an"}});
  CHECK(resolve_api_key(LlmProvider::openai, both).value == "general");
  CHECK(resolve_api_key(LlmProvider::openai, both).source == "AUTORESEARCH_LLM_API_KEY");

  auto providers = env_of({{"OPENAI_API_KEY", "oa"}, {"ANTHROPIC_API_KEY", "an"}});
  ApiKey openai = resolve_api_key(LlmProvider::openai, providers);
  CHECK(openai.value == "oa");
  CHECK(openai.source == "OPENAI_API_KEY");
  CHECK(openai.describe() == "key from OPENAI_API_KEY");
  ApiKey anthropic = resolve_api_key(LlmProvider::anthropic, providers);
  CHECK(anthropic.value == "an");
  CHECK(anthropic.source == "ANTHROPIC_API_KEY");

  // The other provider's key is never used.
  CHECK(resolve_api_key(LlmProvider::anthropic, env_of({{"OPENAI_API_KEY", "oa"}})).empty());
  // Set but empty counts as unset.
  CHECK(resolve_api_key(LlmProvider::openai, env_of({{"AUTORESEARCH_LLM_API_KEY", ""}, {"OPENAI_API_KEY", "oa"}})).value == "oa");
  ApiKey none = resolve_api_key(LlmProvider::openai, env_of({}));
  CHECK(none.empty());
  CHECK(none.describe() == "no key");
  CHECK(api_key_variables(LlmProvider::anthropic) == "AUTORESEARCH_LLM_API_KEY or ANTHROPIC_API_KEY");
}

TEST_CASE("keys: a paid endpoint needs one, a local one does not", "[llm][keys]") {
  LlmSettings s;
  s.model = "gpt-4.1";
  CHECK(missing_key_problem(s, ApiKey{}) ==
        "no API key for https://api.openai.com/v1: set AUTORESEARCH_LLM_API_KEY or OPENAI_API_KEY (a local "
        "endpoint, e.g. --llm-base-url http://localhost:8000/v1, needs none)");
  CHECK(missing_key_problem(s, ApiKey{"k", "OPENAI_API_KEY"}).empty());
  s.base_url = "http://127.0.0.1:8080/v1";
  CHECK(missing_key_problem(s, ApiKey{}).empty());
  s.provider = LlmProvider::anthropic;
  s.base_url = "";
  CHECK(missing_key_problem(s, ApiKey{}).find("ANTHROPIC_API_KEY") != std::string::npos);
}

TEST_CASE("keys: describe_endpoint names the variable, never the value", "[llm][keys]") {
  LlmSettings s;
  s.model = "gpt-4.1";
  s.base_url = "https://user:secretpw@proxy.example/v1?api-key=zzz";
  std::string d = describe_endpoint(s, ApiKey{"sk-abcdefgh12345678", "OPENAI_API_KEY"});
  CHECK(d == "openai https://proxy.example/v1 gpt-4.1 (key from OPENAI_API_KEY)");
}

}  // namespace
}  // namespace ar
