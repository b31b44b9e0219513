// The night's record stays true (issue 8, bugs 1, 4 and 6), with the real
// binary on the CPU package: a log that cannot take a keep's line, a commit the
// log lost, the harness killed from outside, the run itself killed with -9.
// A shell script plays the agent and does the damage at the right moment.
#include <signal.h>

#include <fstream>

#include "catch.h"
#include "e2e_support.h"

using e2e::Background;
using e2e::of_type;
using e2e::read_log;
using e2e::run_cli;
using e2e::TempRepo;

namespace fs = std::filesystem;

namespace {

const std::string kMicro =
    R"SH(sed -i 's/if constexpr (LOOP_ORDER == 0) tile_ijk(p, t);/if constexpr (LOOP_ORDER == 0) tile_micro(p, t);/' "$AUTORESEARCH_PACKAGE_DIR/kernel.cpp")SH";

// The autoresearch process this script runs under (the agent's ancestor).
const std::string kFindDriver = R"SH(driver=$$
while [ "$driver" -gt 1 ] && [ "$(cat /proc/$driver/comm)" != autoresearch ]; do
  driver=$(awk '{print $4}' /proc/$driver/stat)
done
)SH";

fs::path write_agent(const TempRepo& repo, const std::string& cases) {
  fs::path p = repo.dir.parent_path() / (repo.dir.filename().string() + "-agent.sh");
  std::ofstream(p) << "#!/bin/sh\n" << kFindDriver << "case \"$AUTORESEARCH_ITERATION\" in\n" << cases
                   << "\n*) exit 3;;\nesac\n";
  return p;
}

std::vector<std::string> run_args(const fs::path& agent, const std::string& tag) {
  return {"run", "--kernel", "matmul_cpu", "--agent", "command", "--agent-cmd", "sh " + agent.string(), "--goal",
          "50x", "--tag", tag, "--config", std::string(AR_SOURCE_DIR) + "/configs/quick.json"};
}

std::map<int, nlohmann::json> candidates(const fs::path& log) {
  std::map<int, nlohmann::json> out;
  for (const auto& c : of_type(read_log(log), "candidate")) out[c["id"].get<int>()] = c;
  return out;
}

int commits_after_base(const TempRepo& repo, const std::string& branch) {
  std::string log = repo.git({"log", "--format=%H", "main.." + branch});
  return log.empty() ? 0 : static_cast<int>(std::count(log.begin(), log.end(), '\n')) + 1;
}

}  // namespace

TEST_CASE("a keep whose log line cannot be written is undone, exit 4; the resume records it", "[night]") {
  TempRepo repo({"matmul_cpu"});
  fs::path log = repo.dir / ".autoresearch/runs/matmul_cpu-logfail/experiments.jsonl";
  // The keep's line cannot be written: the log file is replaced by a folder while the agent runs.
  fs::path agent = write_agent(repo, "1) " + kMicro + "; mv '" + log.string() + "' '" + log.string() +
                                         ".moved'; mkdir '" + log.string() + "';;");
  auto r = run_cli(repo, run_args(agent, "logfail"));
  INFO(r.err);
  CHECK(r.exit_code == 4);
  CHECK(r.err.find("could not be written") != std::string::npos);
  CHECK(r.err.find("autoresearch run --resume matmul_cpu-logfail") != std::string::npos);
  CHECK(commits_after_base(repo, "autoresearch/matmul_cpu-logfail") == 0);   // no commit the log does not know

  fs::remove(log);
  fs::rename(log.string() + ".moved", log);
  auto again = run_cli(repo, {"run", "--resume", "matmul_cpu-logfail"});
  INFO(again.err);
  CHECK(again.exit_code == 3);
  auto c = candidates(log);
  REQUIRE(c.count(1));
  CHECK(c[1]["decision"] == "abandoned");
  CHECK(c[1]["diff"].get<std::string>().find("tile_micro(p, t)") != std::string::npos);
  fs::remove(agent);
}

TEST_CASE("a commit on the branch whose log line was lost is logged as recovered on resume", "[night]") {
  TempRepo repo({"matmul_cpu"});
  fs::path agent = write_agent(repo, "1) " + kMicro + "; echo 'the micro-kernel' > \"$AUTORESEARCH_CONTEXT_DIR/idea.txt\";;");
  auto r = run_cli(repo, run_args(agent, "orphan"));
  INFO(r.err);
  REQUIRE(r.exit_code == 3);
  fs::path log = repo.dir / ".autoresearch/runs/matmul_cpu-orphan/experiments.jsonl";
  REQUIRE(candidates(log)[1]["decision"] == "keep");
  // The keep's line is lost, as after a crash between the commit and the log write.
  std::ifstream in(log);
  std::string text, line;
  while (std::getline(in, line))
    if (line.find("\"type\":\"candidate\"") == std::string::npos) text += line + "\n";
  in.close();
  std::ofstream(log, std::ios::trunc) << text;

  auto again = run_cli(repo, {"run", "--resume", "matmul_cpu-orphan"});
  INFO(again.err);
  CHECK(again.err.find("recovered") != std::string::npos);
  auto c = candidates(log);
  REQUIRE(c.count(1));
  CHECK(c[1]["decision"] == "keep");
  CHECK(c[1]["recovered"] == true);
  CHECK(c[1]["idea"] == "the micro-kernel");
  CHECK(c[1]["commit"] == repo.git({"rev-parse", "autoresearch/matmul_cpu-orphan"}));
  fs::remove(agent);
}

TEST_CASE("a harness killed from outside is not the candidate's crash: it is judged again in a fresh one",
          "[night]") {
  TempRepo repo({"matmul_cpu"});
  // As the OOM killer would: SIGKILL to the driver's harness while the agent works.
  fs::path agent = write_agent(repo, "1) " + kMicro + R"SH(
   for d in /proc/[0-9]*; do
     [ "$(awk '{print $4}' $d/stat 2>/dev/null)" = "$driver" ] && [ "$(cat $d/comm 2>/dev/null)" = harness ] && kill -9 ${d#/proc/}
   done
   true;;)SH");
  auto r = run_cli(repo, run_args(agent, "oom"));
  INFO(r.err);
  CHECK(r.exit_code == 3);
  auto c = candidates(repo.dir / ".autoresearch/runs/matmul_cpu-oom/experiments.jsonl");
  REQUIRE(c.count(1));
  CHECK(c[1]["decision"] == "keep");
  REQUIRE(c[1].contains("retried"));
  CHECK(c[1]["retried"].get<std::string>().find("SIGKILL") != std::string::npos);
  fs::remove(agent);
}

TEST_CASE("kill -9 of the run mid-candidate: the resume logs the candidate as abandoned, with its diff", "[night]") {
  TempRepo repo({"matmul_cpu"});
  fs::path agent = write_agent(repo, "1) " + kMicro + ";;");
  fs::path run_dir = repo.dir / ".autoresearch/runs/matmul_cpu-kill9";
  Background bg(repo, run_args(agent, "kill9"));
  // Killed once the candidate is being judged: its diff is on record in the in-flight marker.
  REQUIRE(e2e::wait_until(
      [&] {
        std::ifstream in(run_dir / "in_flight.json");
        std::string text((std::istreambuf_iterator<char>(in)), {});
        return text.find("tile_micro") != std::string::npos;
      },
      300));
  bg.signal(SIGKILL);
  CHECK(bg.wait(60) == 128 + SIGKILL);
  fs::path log = run_dir / "experiments.jsonl";
  CHECK(candidates(log).empty());   // nothing was logged of it before the kill

  auto again = run_cli(repo, {"run", "--resume", "matmul_cpu-kill9"});
  INFO(again.err);
  auto c = candidates(log);
  REQUIRE(c.count(1));
  CHECK(c[1]["decision"] == "abandoned");
  CHECK(c[1]["diff"].get<std::string>().find("tile_micro(p, t)") != std::string::npos);
  CHECK(repo.git({"-C", (run_dir / "worktree").string(), "status", "--porcelain"}).empty());
  fs::remove(agent);
}
