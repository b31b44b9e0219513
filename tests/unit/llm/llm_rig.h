#pragma once
// A client wired to the scripted transport and the recording sleeper, with a
// small price table, for the tests of requests, parsing and retries.
#include <memory>
#include <string>
#include <vector>

#include "autoresearch/llm/llm_client.h"
#include "unit/llm/llm_fakes.h"

namespace ar {

// Shaped like a real key, so the redaction of key-shaped tokens is exercised too.
inline const std::string kTestKey = "sk-test-SECRET-0123456789abcdefXYZ";

inline std::shared_ptr<const PriceTable> test_prices() {
  static const char* kPrices = R"({
    "retrieved": "2026-12-01",
    "models": [
      {"match": "gpt-4.1", "input_per_mtok": 2.0, "output_per_mtok": 8.0, "cached_input_per_mtok": 0.5},
      {"match": "claude-sonnet-4-5", "input_per_mtok": 3.0, "output_per_mtok": 15.0,
       "cached_input_per_mtok": 0.3, "cache_write_per_mtok": 3.75},
      {"match": "claude-opus-4-1", "input_per_mtok": 15.0, "output_per_mtok": 75.0}
    ]})";
  return std::make_shared<const PriceTable>(PriceTable::parse(kPrices, "test prices"));
}

inline LlmSettings openai_settings(const std::string& model = "gpt-4.1") {
  LlmSettings s;
  s.provider = LlmProvider::openai;
  s.model = model;
  s.max_output_tokens = 1000;
  return s;
}

inline LlmSettings anthropic_settings(const std::string& model = "claude-sonnet-4-5") {
  LlmSettings s = openai_settings(model);
  s.provider = LlmProvider::anthropic;
  return s;
}

inline LlmRequest hello_request() {
  LlmRequest r;
  r.system = "You edit CUDA kernels.";
  r.messages = {{"user", "Make it faster."}};
  return r;
}

struct Rig {
  std::shared_ptr<ScriptedTransport> transport;
  std::shared_ptr<RecordingSleeper> sleeper;
  std::unique_ptr<LlmClient> client;
};

inline Rig make_rig(const LlmSettings& settings, std::vector<ScriptedHttp> script,
                    const std::string& key = kTestKey) {
  Rig rig;
  rig.transport = std::make_shared<ScriptedTransport>(std::move(script));
  rig.sleeper = std::make_shared<RecordingSleeper>();
  LlmClientDeps deps;
  deps.transport = rig.transport;
  deps.sleeper = rig.sleeper;
  deps.jitter_seed = 42;
  rig.client = make_llm_client(settings, ApiKey{key, key.empty() ? "" : "AUTORESEARCH_LLM_API_KEY"}, test_prices(), deps);
  return rig;
}

}  // namespace ar
