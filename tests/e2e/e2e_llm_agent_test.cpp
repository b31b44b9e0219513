// `autoresearch run --agent llm` end to end: the real binary on the CPU
// package against the loopback fake LLM server, once per provider. The fake's
// answers follow the providers' documented payloads (thinking blocks, several
// content blocks, SSE event sequences, finish_reason "length", 429 with
// retry-after, 5xx/529, quota errors). The night it scripts: an edit that does
// not apply is sent back and corrected, then kept; a rate limit is waited out;
// a truncated answer is an agent error; a bad tunables edit is sent back and
// the retry is wrong; the quota runs out and the run stops with exit 4.
#include <fstream>

#include "catch.h"
#include "e2e_support.h"
#include "support/fake_llm_server_process.h"

using e2e::of_type;
using e2e::read_log;
using e2e::run_cli_env;
using e2e::TempRepo;

namespace fs = std::filesystem;

namespace {

const std::string kKey = "sk-e2e-fake-key-8f3a1c9d77b2e6401";

std::string block(const std::string& search, const std::string& replace) {
  return "kernel.cpp\n```cpp\n<<<<<<< SEARCH\n" + search + "=======\n" + replace + ">>>>>>> REPLACE\n```\n";
}

nlohmann::json night(const std::string& provider) {
  const std::string micro_old = "  if constexpr (LOOP_ORDER == 0) tile_ijk(p, t);\n";
  const std::string micro_new = "  if constexpr (LOOP_ORDER == 0) tile_micro(p, t);\n";
  const std::string typo = "  if constexpr (LOOP_ORDER == 0) tile_ijk(p, q);\n";
  const std::string fill_old = "        std::fill(p.c + static_cast<long>(i) * p.ldc + j0, p.c + static_cast<long>(i) * p.ldc + j1, 0.0f);\n";
  const std::string fill_new = "        std::fill(p.c + static_cast<long>(i) * p.ldc + j0, p.c + static_cast<long>(i) * p.ldc + j1, 1e-3f);\n";
  nlohmann::json quota = provider == "openai"
                             ? nlohmann::json{{"status", 429},
                                              {"error", {{"type", "insufficient_quota"}, {"code", "insufficient_quota"},
                                                         {"message", "You exceeded your current quota."}}}}
                             : nlohmann::json{{"status", 400},
                                              {"error", {{"type", "invalid_request_error"},
                                                         {"message", "Your credit balance is too low to access the API."}}}};
  nlohmann::json busy = provider == "openai"
                            ? nlohmann::json{{"status", 500}, {"error", {{"type", "server_error"}, {"message", "boom"}}}}
                            : nlohmann::json{{"status", 529}, {"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}};
  return {{"after_last", "repeat_last"},
          {"responses",
           {
               // #1: thinking, then an edit whose SEARCH has a typo...
               {{"blocks",
                 {{{"type", "thinking"}, {"thinking", "The default order walks B by columns."}},
                  {{"type", "text"}, {"text", "IDEA: use the register-blocked micro-kernel for the default order\n\n"}},
                  {{"type", "text"}, {"text", block(typo, micro_new)}}}},
                {"usage", {{"input", 4000}, {"output", 300}}}},
               // ...fed back, and corrected.
               {{"text", "IDEA: use the register-blocked micro-kernel for the default order\n" + block(micro_old, micro_new)},
                {"usage", {{"input", 4500}, {"output", 200}}}},
               // #2: a rate limit, waited out, then an answer cut off at the output limit.
               {{"status", 429}, {"headers", {{"retry-after", "1"}}},
                {"error", {{"type", "rate_limit_error"}, {"message", "slow down"}}}},
               {{"text", "IDEA: unroll\nkernel.cpp\n```cpp\n<<<<<<< SEARCH\n  for (int i0"}, {"finish", "length"},
                {"usage", {{"input", 4000}, {"output", 16384}}}},
               // #3: the server is busy once; then a tunables edit that is not allowed, fed back; then a wrong edit.
               busy,
               {{"text", "IDEA: bigger tiles\ntunables.json\n```json\n{\"TILE_M\": 512}\n```\n"}},
               {{"text", "IDEA: start C from a guess\n" + block(fill_old, fill_new)}},
               // #4: the quota is gone: nothing will work until a human acts.
               quota,
           }}};
}

}  // namespace

TEST_CASE("run --agent llm: edits applied and judged, failures fed back, tokens logged, the key nowhere on disk") {
  for (const std::string provider : {"openai", "anthropic"}) {
    DYNAMIC_SECTION(provider) {
      TempRepo repo({"matmul_cpu"});
      ar::FakeLlmServerProcess server(AR_FAKE_LLM_SERVER, repo.dir.string() + "-llm", night(provider),
                                      {{"FAKE_LLM_EXPECT_KEY", kKey}});
      std::string base = provider == "openai" ? server.base_url("/v1") : server.base_url();
      std::string key_var = provider == "openai" ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY";
      auto r = run_cli_env(repo,
                           {"run", "--kernel", "matmul_cpu", "--agent", "llm", "--llm-provider", provider,
                            "--llm-base-url", base, "--llm-model", "fake-model", "--llm-paid", "true", "--goal", "20x",
                            "--tag", "llm", "--seed", "5", "--max-iters", "6", "--config",
                            std::string(AR_SOURCE_DIR) + "/configs/quick.json"},
                           {{key_var, kKey}});
      INFO(r.err);
      CHECK(r.exit_code == 4);
      CHECK(r.err.find("quota") != std::string::npos);
      auto lines = read_log(repo.dir / ".autoresearch/runs/matmul_cpu-llm/experiments.jsonl");
      CHECK(lines.at(0)["agent"]["provider"] == provider);
      auto c = of_type(lines, "candidate");
      REQUIRE(c.size() == 4);
      CHECK(c[0]["decision"] == "keep");
      CHECK(c[0]["idea"] == "use the register-blocked micro-kernel for the default order");
      CHECK(c[0]["calls"].size() == 2);   // the failing edit went back once
      CHECK(c[0]["tokens"]["in"] == 8500);
      CHECK(c[0]["tokens"]["out"] == 500);
      CHECK(c[0]["cost_usd"].get<double>() > 0);            // priced (at the fallback: fake-model is in no table)
      CHECK(c[0]["calls"][0]["cost_estimated"] == true);
      CHECK(c[1]["decision"] == "agent_error");
      CHECK(c[1]["reason"].get<std::string>().find("cut off") != std::string::npos);
      CHECK(c[1]["calls"][0]["attempts"] == 2);            // the 429 was waited out
      CHECK(c[2]["decision"] == "wrong");
      CHECK(c[2]["calls"].size() == 2);                   // the tunables edit was refused and sent back
      CHECK(c[3]["decision"] == "error");
      auto fin = of_type(lines, "final");
      REQUIRE(fin.size() == 1);
      CHECK(fin[0]["stop_reason"].get<std::string>().find("quota") != std::string::npos);

      // What the model was told: the pack, then the reason its edit failed, with the nearest lines.
      auto requests = server.records();
      REQUIRE(requests.size() >= 6);
      std::string second = requests[1]["body"].dump();
      CHECK(second.find("tile_ijk(p, q)") != std::string::npos);          // its own answer, as the assistant turn
      CHECK(second.find("tile_ijk(p, t)") != std::string::npos);          // the nearest lines of the file
      for (const auto& q : requests) {
        CHECK(q["auth_matches"] == true);
        CHECK(q["body"]["stream"] == true);
      }
      // The key is nowhere on disk: not in the log, the worktree, the context pack, the cache.
      CHECK(e2e::files_containing(repo.dir, kKey).empty());
      CHECK(e2e::files_containing(AR_E2E_CACHE, kKey).empty());
      CHECK(r.err.find(kKey) == std::string::npos);
      CHECK(r.out.find(kKey) == std::string::npos);
      fs::remove_all(repo.dir.string() + "-llm");
    }
  }
}

TEST_CASE("a cost budget stops an llm run with exit 3; doctor probes the endpoint without showing the key") {
  TempRepo repo({"matmul_cpu"});
  nlohmann::json script = {{"responses", {{{"text", "IDEA: nothing much\nkernel.cpp\n```cpp\n<<<<<<< SEARCH\n"
                                                     "  if constexpr (LOOP_ORDER == 0) tile_ijk(p, t);\n=======\n"
                                                     "  if constexpr (LOOP_ORDER == 0) tile_ikj(p, t);\n>>>>>>> REPLACE\n```\n"},
                                            {"usage", {{"input", 200000}, {"output", 1000}}}}}},
                           {"models", {"fake-model"}}};
  ar::FakeLlmServerProcess server(AR_FAKE_LLM_SERVER, repo.dir.string() + "-llm", script, {{"FAKE_LLM_EXPECT_KEY", kKey}});
  std::map<std::string, std::string> env = {{"OPENAI_API_KEY", kKey}};
  auto r = run_cli_env(repo,
                       {"run", "--kernel", "matmul_cpu", "--agent", "llm", "--llm-base-url", server.base_url("/v1"),
                        "--llm-model", "fake-model", "--llm-paid", "true", "--max-cost", "1", "--goal", "50x", "--tag",
                        "cost", "--max-iters", "10", "--config", std::string(AR_SOURCE_DIR) + "/configs/quick.json"},
                       env);
  INFO(r.err);
  CHECK(r.exit_code == 3);
  auto lines = read_log(repo.dir / ".autoresearch/runs/matmul_cpu-cost/experiments.jsonl");
  auto c = of_type(lines, "candidate");
  REQUIRE(!c.empty());
  CHECK(c.size() < 10);   // 200k tokens at the fallback price (> $1 each): the budget binds after the first
  CHECK(of_type(lines, "final").at(0)["stop_reason"].get<std::string>().find("--max-cost") != std::string::npos);

  auto d = run_cli_env(repo, {"doctor", "--llm-base-url", server.base_url("/v1"), "--llm-model", "fake-model"}, env);
  CHECK(d.out.find("LLM endpoint") != std::string::npos);
  CHECK(d.out.find("fake-model") != std::string::npos);
  CHECK(d.out.find("key from OPENAI_API_KEY") != std::string::npos);
  CHECK(d.out.find(kKey) == std::string::npos);
  CHECK(d.err.find(kKey) == std::string::npos);
  fs::remove_all(repo.dir.string() + "-llm");
}
