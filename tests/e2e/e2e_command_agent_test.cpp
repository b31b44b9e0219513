// `autoresearch run --agent command` end to end: the real binary, the real CPU
// package, a shell script as the agent. The script plays a coding CLI: it
// reads the context pack, makes a structural change (the register-blocked
// micro-kernel for the default loop order), then a wrong one, then has nothing left.
#include <fstream>

#include "catch.h"
#include "e2e_support.h"

using e2e::of_type;
using e2e::read_log;
using e2e::run_cli;
using e2e::TempRepo;

namespace fs = std::filesystem;

TEST_CASE("a command agent's structural edit is tuned, judged, kept and committed; a wrong one is reverted") {
  TempRepo repo({"matmul_cpu"});
  fs::path script = repo.dir.parent_path() / (repo.dir.filename().string() + "-agent.sh");
  std::ofstream(script) << R"SH(#!/bin/sh
set -e
k="$AUTORESEARCH_PACKAGE_DIR/kernel.cpp"
test -f "$AUTORESEARCH_CONTEXT_DIR/rules.md"       # the pack is there
test -f "$AUTORESEARCH_CONTEXT_DIR/src/kernel.cpp"
case "$AUTORESEARCH_ITERATION" in
1) sed -i 's/if constexpr (LOOP_ORDER == 0) tile_ijk(p, t);/if constexpr (LOOP_ORDER == 0) tile_micro(p, t);/' "$k"
   grep -q 'LOOP_ORDER == 0) tile_micro' "$k"
   echo "the register-blocked micro-kernel for the default order" > "$AUTORESEARCH_CONTEXT_DIR/idea.txt";;
2) sed -i 's/p.c + static_cast<long>(i) \* p.ldc + j1, 0.0f)/p.c + static_cast<long>(i) * p.ldc + j1, 1e-3f)/' "$k"
   grep -q '1e-3f' "$k"
   echo "IDEA: start C from a guess (wrong on purpose)";;
*) exit 3;;
esac
)SH";
  auto r = run_cli(repo, {"run", "--kernel", "matmul_cpu", "--agent", "command", "--agent-cmd", "sh " + script.string(),
                          "--tune-each", "3", "--goal", "20x", "--tag", "cmd", "--seed", "3", "--config",
                          std::string(AR_SOURCE_DIR) + "/configs/quick.json"});
  INFO(r.err);
  fs::remove(script);
  CHECK(r.exit_code == 3);   // the agent ran out of ideas before a 20x goal
  auto lines = read_log(repo.dir / ".autoresearch/runs/matmul_cpu-cmd/experiments.jsonl");
  CHECK(lines.at(0)["agent"]["name"] == "command");
  auto c = of_type(lines, "candidate");
  REQUIRE(c.size() == 2);
  CHECK(c[0]["decision"] == "keep");
  CHECK(c[0]["idea"].get<std::string>().rfind("the register-blocked micro-kernel", 0) == 0);
  CHECK(c[0]["tune_each"].size() >= 2);
  CHECK(c[0]["diff"].get<std::string>().find("+  if constexpr (LOOP_ORDER == 0) tile_micro(p, t);") != std::string::npos);
  CHECK(c[1]["decision"] == "wrong");
  CHECK(c[1]["idea"].get<std::string>().rfind("start C from a guess (wrong on purpose)", 0) == 0);
  CHECK(of_type(lines, "final").at(0)["stop_reason"] == "the agent has nothing left to try");

  // The kept commit holds the edit and the tuned tunables that were measured.
  std::string kernel = repo.git({"show", "autoresearch/matmul_cpu-cmd:kernels/matmul_cpu/kernel.cpp"});
  CHECK(kernel.find("LOOP_ORDER == 0) tile_micro") != std::string::npos);
  CHECK(kernel.find("1e-3f") == std::string::npos);
  auto tunables = nlohmann::json::parse(repo.git({"show", "autoresearch/matmul_cpu-cmd:kernels/matmul_cpu/tunables.json"}));
  CHECK(tunables == c[0]["tunables"]);
  CHECK(repo.git({"status", "--porcelain"}).empty());   // the user's checkout is untouched
}
