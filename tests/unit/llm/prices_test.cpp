#include "autoresearch/llm/prices.h"

#include <string>

#include "autoresearch/llm/llm_client.h"
#include "autoresearch/util/errors.h"
#include "catch.h"
#include "unit/fakes/temp_dir.h"

namespace ar {
namespace {

PriceTable table() {
  return PriceTable::parse(R"({"retrieved": "2026-12-01", "models": [
      {"match": "gpt-4.1", "input_per_mtok": 2, "output_per_mtok": 8, "cached_input_per_mtok": 0.5},
      {"match": "gpt-4.1-mini", "input_per_mtok": 0.4, "output_per_mtok": 1.6},
      {"match": "claude-opus-4", "input_per_mtok": 15, "output_per_mtok": 75},
      {"match": "claude-opus-4-5", "input_per_mtok": 5, "output_per_mtok": 25, "cache_write_per_mtok": 6.25},
      {"match": "claude-sonnet-4-5", "input_per_mtok": 3, "output_per_mtok": 15},
      {"match": "llama-*", "input_per_mtok": 0.1, "output_per_mtok": 0.2},
      {"match": "llama-3.1-405b*", "input_per_mtok": 3, "output_per_mtok": 3}]})",
                           "test.json");
}

std::string found(const PriceTable& t, const std::string& model) {
  const ModelPrice* p = t.find(model);
  return p ? p->match : "(none)";
}

TEST_CASE("prices: a name matches itself and its dated or tagged variants, the longest wins", "[llm][prices]") {
  PriceTable t = table();
  CHECK(found(t, "gpt-4.1") == "gpt-4.1");
  CHECK(found(t, "gpt-4.1-2025-04-14") == "gpt-4.1");
  CHECK(found(t, "gpt-4.1-mini") == "gpt-4.1-mini");
  CHECK(found(t, "gpt-4.1-mini-2025-04-14") == "gpt-4.1-mini");
  CHECK(found(t, "gpt-4.1-turbo") == "(none)");  // not a variant of gpt-4.1
  CHECK(found(t, "claude-opus-4-20250514") == "claude-opus-4");
  CHECK(found(t, "claude-opus-4-5-20251101") == "claude-opus-4-5");
  CHECK(found(t, "claude-opus-4-5@20251101") == "claude-opus-4-5");  // Vertex spelling
  CHECK(found(t, "claude-opus-4-8") == "(none)");                   // a newer model is not the old price
  CHECK(found(t, "CLAUDE-SONNET-4-5") == "claude-sonnet-4-5");
  CHECK(found(t, "anthropic/claude-sonnet-4.5") == "claude-sonnet-4-5");  // OpenRouter
  CHECK(found(t, "openai/gpt-4.1") == "gpt-4.1");
  CHECK(found(t, "llama-3.1-405b-instruct") == "llama-3.1-405b*");
  CHECK(found(t, "llama-3.1-8b") == "llama-*");
}

TEST_CASE("prices: cost of a known model, cached and cache-write tokens priced apart", "[llm][prices]") {
  PriceTable t = table();
  LlmUsage u;
  u.input_tokens = 10000;
  u.cached_input_tokens = 8000;
  u.output_tokens = 1000;
  CallCost c = call_cost(t, {"gpt-4.1-2025-04-14", "gpt-4.1"}, is_paid_endpoint("https://api.openai.com/v1"), u);
  CHECK(c.usd == Approx((2000 * 2 + 8000 * 0.5 + 1000 * 8) / 1e6));
  CHECK_FALSE(c.estimated);
  CHECK(c.basis.find("gpt-4.1") != std::string::npos);

  LlmUsage w;
  w.input_tokens = 3000;
  w.cache_write_tokens = 1000;
  w.output_tokens = 10;
  CallCost d = call_cost(t, {"claude-opus-4-5"}, is_paid_endpoint(""), w);
  CHECK(d.usd == Approx((2000 * 5 + 1000 * 6.25 + 10 * 25) / 1e6));
}

TEST_CASE("prices: an unknown model on a paid endpoint is priced high and flagged", "[llm][prices]") {
  PriceTable t = table();
  ModelPrice f = t.fallback();
  CHECK(f.input_per_mtok == 15);
  CHECK(f.output_per_mtok == 75);
  LlmUsage u;
  u.input_tokens = 1000000;
  u.cached_input_tokens = 500000;  // no cache discount assumed for an unknown model
  u.output_tokens = 1000000;
  CallCost c = call_cost(t, {"", "mystery-model"}, is_paid_endpoint("https://openrouter.ai/api/v1"), u);
  CHECK(c.usd == Approx(15 + 75));
  CHECK(c.estimated);
  CHECK(c.basis.find("'mystery-model' not in test.json") != std::string::npos);
}

TEST_CASE("prices: a local endpoint costs nothing; estimated tokens flag the cost", "[llm][prices]") {
  PriceTable t = table();
  LlmUsage u;
  u.input_tokens = 5000;
  u.output_tokens = 5000;
  CallCost local = call_cost(t, {"mystery-model"}, is_paid_endpoint("http://127.0.0.1:8080/v1"), u);
  CHECK(local.usd == 0);
  CHECK_FALSE(local.estimated);
  u.estimated = true;
  CallCost guessed = call_cost(t, {"gpt-4.1"}, is_paid_endpoint(""), u);
  CHECK(guessed.estimated);
  CHECK(guessed.usd > 0);
}

TEST_CASE("prices: which endpoints are paid", "[llm][prices]") {
  for (const char* free : {"http://localhost:8000/v1", "http://LOCALHOST:11434", "http://127.0.0.1:8080/v1",
                           "http://127.9.9.9", "http://[::1]:8000/v1", "http://10.1.2.3:8000", "http://172.16.0.5",
                           "http://172.31.255.1", "http://192.168.1.20:1234/v1", "http://169.254.1.1",
                           "http://[fe80::1]:80", "http://[fd12:3456::1]/v1", "http://gpu-box.local:8000/v1",
                           "http://api.localhost", "http://0.0.0.0:8000", "http://user:pw@127.0.0.1:8000",
                           "http://[::ffff:192.168.0.1]:80"}) {
    INFO(free);
    CHECK_FALSE(is_paid_endpoint(free));
  }
  for (const char* paid : {"", "https://api.openai.com/v1", "https://api.anthropic.com", "https://openrouter.ai/api/v1",
                           "http://172.32.0.1", "http://11.0.0.1", "http://192.169.0.1", "https://localhost.evil.com",
                           "http://[2001:db8::1]/v1", "https://local.example.com"}) {
    INFO(paid);
    CHECK(is_paid_endpoint(paid));
  }
}

TEST_CASE("prices: a malformed file names the file and the field", "[llm][prices]") {
  auto error_of = [](const std::string& text) {
    try {
      PriceTable::parse(text, "configs/prices.json");
    } catch (const Fatal& e) {
      CHECK(e.code() == kExitUsage);
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK(error_of("{") .find("configs/prices.json: not valid JSON") == 0);
  CHECK(error_of(R"({"models": []})") == "configs/prices.json: retrieved: expected the date the prices were taken, as a string (YYYY-MM-DD)");
  CHECK(error_of(R"({"retrieved": "x", "models": {}})") == "configs/prices.json: models: expected a non-empty array of prices");
  CHECK(error_of(R"({"retrieved": "x", "models": [{"match": "a", "input_per_mtok": 1, "output_per_mtok": 1},
                                                 {"match": "b", "input_per_mtok": 1, "output_per_mtok": "2"}]})") ==
        "configs/prices.json: models[1].output_per_mtok: expected a number >= 0 (USD per million tokens)");
  CHECK(error_of(R"({"retrieved": "x", "models": [{"input_per_mtok": 1, "output_per_mtok": 1}]})") ==
        "configs/prices.json: models[0].match: expected a model name or a prefix ending in '*'");
  CHECK(error_of(R"({"retrieved": "x", "models": [{"match": "a", "input_per_mtok": -1, "output_per_mtok": 1}]})").find(
            "models[0].input_per_mtok") != std::string::npos);
  CHECK(error_of(R"({"retrieved": "x", "models": [{"match": "a", "input_per_mtok": 1, "output_per_mtok": 1, "cached_input_per_mtok": true}]})")
            .find("models[0].cached_input_per_mtok") != std::string::npos);
  CHECK(error_of(R"({"retrieved": "x", "models": [{"match": "a", "input_per_mtok": 1, "output_per_mtok": 1},
                                                 {"match": "A", "input_per_mtok": 1, "output_per_mtok": 1}]})")
            .find("models[1].match") != std::string::npos);

  TempDir dir;
  try {
    PriceTable::load(dir / "missing.json");
    FAIL("expected an error");
  } catch (const Fatal& e) {
    CHECK(std::string(e.what()).find("missing.json") != std::string::npos);
  }
}

TEST_CASE("prices: the shipped configs/prices.json loads and prices the current models", "[llm][prices]") {
  PriceTable t = PriceTable::load(std::string(AR_TEST_SOURCE_DIR) + "/configs/prices.json");
  CHECK(t.retrieved() == "2026-12-01");
  for (const char* model : {"gpt-5", "gpt-5-mini", "gpt-5.4", "gpt-4.1", "gpt-4o-mini", "o3", "o4-mini",
                            "claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001",
                            "claude-opus-4-1-20250805", "claude-sonnet-4-20250514"}) {
    INFO(model);
    CHECK(t.find(model) != nullptr);
  }
  CHECK(t.find("claude-sonnet-4-5-20250929")->output_per_mtok == 15);
  CHECK(t.find("claude-sonnet-4-20250514")->match == "claude-sonnet-4");
  for (const auto& p : t.entries()) {
    INFO(p.match);
    CHECK_FALSE(p.note.empty());  // every figure says how it was confirmed
    CHECK(p.output_per_mtok >= p.input_per_mtok);
  }
}

}  // namespace
}  // namespace ar
