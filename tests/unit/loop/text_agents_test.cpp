// The loop with a text agent: the command agent runs real shell scripts that
// edit the worktree; the compiler and the harness are the fixture's fakes.
// Each scenario is one a night can produce: an edit that wins, one that is
// wrong, an agent that commits behind the loop's back, edits the oracle,
// changes nothing, fails, cannot be run; and the night-integrity cases (a log
// that cannot be written, a commit the log lost, a run killed mid-candidate, a
// harness killed from outside).
#include <cstdlib>

#include "autoresearch/agents/command_agent.h"
#include "autoresearch/util/fs.h"
#include "unit/loop/loop_fixture.h"

using namespace loop_test;

namespace {

std::string agent_script(Fixture& f, const std::string& body) {
  fs::path p = f.dir.path() / "agent.sh";
  std::ofstream(p) << "#!/bin/sh\nk=\"$AUTORESEARCH_PACKAGE_DIR/kernel.cpp\"\nc=\"$AUTORESEARCH_CONTEXT_DIR\"\n"
                      "case \"$AUTORESEARCH_ITERATION\" in\n"
                   << body << "\n*) exit 3;;\nesac\n";
  return "sh " + p.string();
}

RunRequest command_request(Fixture& f, const std::string& cmd,
                           std::vector<std::pair<std::string, nlohmann::json>> more = {}) {
  std::vector<std::pair<std::string, nlohmann::json>> o = {
      {"agent", "command"}, {"agent_cmd", cmd}, {"goal", "5x"}, {"max_iters", 20}, {"profile", false}};
  o.insert(o.end(), more.begin(), more.end());
  return f.request(o);
}

std::map<int, nlohmann::json> by_id(const std::vector<nlohmann::json>& lines) {
  std::map<int, nlohmann::json> out;
  for (const auto& c : of(lines, "candidate")) out[c["id"].get<int>()] = c;
  return out;
}

int commits_on_branch(Fixture& f) {
  std::string log = f.git({"log", "--format=%s", "main..autoresearch/toy-t"});
  return static_cast<int>(std::count(log.begin(), log.end(), '\n'));
}

fs::path log_file(Fixture& f) { return f.dir.path() / ".autoresearch/runs/toy-t/experiments.jsonl"; }
fs::path worktree(Fixture& f) { return f.dir.path() / ".autoresearch/runs/toy-t/worktree"; }

}  // namespace

TEST_CASE("the command agent's edits are judged like any candidate, and its misdeeds are undone") {
  Fixture f;
  std::string cmd = agent_script(f, R"(
1) echo "// FAST: unrolled" >> "$k"; echo "unroll the inner loop" > "$c/idea.txt";;
2) echo "// WRONG" >> "$k"; echo "IDEA: skip the tail of k";;
3) echo "// FAST again" >> "$k"; git add -A && git -c user.name=a -c user.email=a@a commit -qm sneaky;;
4) echo "// edited" >> "$AUTORESEARCH_PACKAGE_DIR/problem.cpp";;
5) ;;
6) echo '{"X": 7}' > "$AUTORESEARCH_PACKAGE_DIR/tunables.json";;
7) echo "out of credits" >&2; exit 1;;)");
  int code = run_loop(f.world, command_request(f, cmd));
  CHECK(code == kExitStopped);
  auto c = by_id(f.lines());
  REQUIRE(c.size() == 7);
  CHECK(c[1]["decision"] == "keep");
  CHECK(c[1]["idea"] == "unroll the inner loop");
  CHECK(c[1]["agent"] == "command");
  CHECK(c[1]["diff"].get<std::string>().find("+// FAST: unrolled") != std::string::npos);
  CHECK(c[2]["decision"] == "wrong");
  CHECK(c[2]["idea"] == "skip the tail of k");
  // A source change is verified before its screen: the agent learns where it is wrong.
  CHECK(c[2]["reason"].get<std::string>().rfind("verify quick: wrong on w1", 0) == 0);
  CHECK_FALSE(c[2].contains("screen"));
  CHECK(c[3]["decision"] == "rejected_by_guard");
  CHECK(c[3]["reason"].get<std::string>().find("moved HEAD") != std::string::npos);
  CHECK(c[4]["decision"] == "rejected_by_guard");
  CHECK(c[4]["reason"].get<std::string>().find("problem.cpp") != std::string::npos);
  CHECK(c[5]["decision"] == "agent_error");
  CHECK(c[5]["reason"] == "the agent changed nothing");
  CHECK(c[6]["decision"] == "agent_error");
  CHECK(c[6]["reason"].get<std::string>().find("tunables") != std::string::npos);
  CHECK(c[7]["decision"] == "error");
  CHECK(c[7]["reason"].get<std::string>().find("out of credits") != std::string::npos);
  CHECK(c[7]["agent_detail"]["stderr_tail"].get<std::string>().find("out of credits") != std::string::npos);
  CHECK(of(f.lines(), "final")[0]["stop_reason"] == "the agent has nothing left to try");

  // Only the keep is on the branch; the sneaky commit is gone and the worktree is clean.
  CHECK(commits_on_branch(f) == 1);
  CHECK(f.git({"-C", worktree(f).string(), "status", "--porcelain"}).empty());
  CHECK(read_file(worktree(f) / "kernels/toy/kernel.cpp").find("FAST again") == std::string::npos);
  CHECK(read_file(f.dir.path() / "kernels/toy/kernel.cpp").find("FAST") == std::string::npos);   // the checkout

  // The agent was told what happened: the last pack holds the history and the rules.
  fs::path pack = f.dir.path() / ".autoresearch/runs/toy-t/context";
  auto facts = nlohmann::json::parse(read_file(pack / "pack.json"));
  REQUIRE(facts["history"].size() >= 6);
  CHECK(facts["history"][0]["decision"] == "keep");
  CHECK(fs::exists(pack / "rules.md"));
  CHECK(fs::exists(pack / "src/kernel.cpp"));
  CHECK(read_file(pack / "history.md").find("moved HEAD") != std::string::npos);
}

TEST_CASE("--tune-each sweeps a text candidate's tunables and judges the best setting") {
  Fixture f;
  std::string cmd = agent_script(f, R"(1) echo "// FAST" >> "$k";;)");
  int code = run_loop(f.world, command_request(f, cmd, {{"tune_each", 3}}));
  CHECK(code == kExitStopped);
  auto c = by_id(f.lines());
  REQUIRE(c.count(1));
  CHECK(c[1]["decision"] == "keep");
  CHECK(c[1]["tunables"]["X"] == 2);   // the fastest correct setting (X = 3 is wrong)
  CHECK(c[1]["tune_each"].size() >= 3);
  CHECK(c[1]["idea"].get<std::string>().find("tuned: X 0→2") != std::string::npos);
  // The commit rebuilds what was measured: the tuned value is in its tunables file.
  auto committed = f.git({"show", "autoresearch/toy-t:kernels/toy/tunables.json"});
  CHECK(nlohmann::json::parse(committed)["X"] == 2);
}

TEST_CASE("--tune-each never picks a setting that slows a quick workload beyond the margin") {
  Fixture f;
  // Both workloads quick: the sweep's screen sees the regression.
  fs::path manifest = f.dir.path() / "kernels/toy/manifest.json";
  std::string text = read_file(manifest);
  text.replace(text.find(R"("params": {"n": 2}, "timed": true)"), 33, R"("params": {"n": 2}, "quick": true, "timed": true)");
  std::ofstream(manifest) << text;
  f.git({"commit", "-qam", "both quick"});
  // With SKEW, X = 2 has the best geomean (50 and 120 µs against 100 and 100)
  // but slows w2 by 20%; X = 1 is 10% faster on both.
  std::string cmd = agent_script(f, R"(1) echo "// SKEW" >> "$k";;)");
  int code = run_loop(f.world, command_request(f, cmd, {{"tune_each", 3}}));
  CHECK(code == kExitStopped);
  auto c = by_id(f.lines());
  REQUIRE(c.count(1));
  CHECK(c[1]["tunables"]["X"] == 1);
  CHECK(c[1]["decision"] == "keep");
  bool regression_noted = false;
  for (const auto& s : c[1]["tune_each"])
    if (s["tunables"]["X"] == 2) regression_noted = s.value("reason", "").find("regresses w2") != std::string::npos;
  CHECK(regression_noted);
}

TEST_CASE("an agent command that cannot run stops the run with exit 4; one that keeps failing too") {
  SECTION("not found") {
    Fixture f;
    int code = run_loop(f.world, command_request(f, "no-such-agent-program --fix"));
    CHECK(code == kExitInfrastructure);
    auto fin = of(f.lines(), "final");
    REQUIRE(fin.size() == 1);
    CHECK(fin[0]["stop_reason"].get<std::string>().find("cannot be run") != std::string::npos);
  }
  SECTION("failing every time") {
    Fixture f;
    int code = run_loop(f.world, command_request(f, "sh -c 'exit 1'", {{"infra_failures", 3}}));
    CHECK(code == kExitInfrastructure);
    CHECK(of(f.lines(), "candidate").size() == 3);
  }
}

TEST_CASE("a keep whose log line cannot be written is undone and the run stops with exit 4") {
  Fixture f;
  fs::path log = log_file(f);
  std::string cmd = agent_script(f, "1) echo \"// FAST\" >> \"$k\"; mv '" + log.string() + "' '" + log.string() +
                                        ".moved'; mkdir '" + log.string() + "';;");
  int code = run_loop(f.world, command_request(f, cmd));
  CHECK(code == kExitInfrastructure);
  CHECK(commits_on_branch(f) == 0);   // the branch never holds a commit the log does not know
  fs::remove(log);
  fs::rename(log.string() + ".moved", log);

  // The resume records the lost candidate as abandoned and goes on.
  f.stop = false;
  RunRequest again = command_request(f, agent_script(f, "2) echo \"// FAST\" >> \"$k\";;"));
  again.resume = "toy-t";
  again.overrides = {{"max_iters", 2}};
  code = run_loop(f.world, again);
  auto c = by_id(f.lines());
  REQUIRE(c.count(1));
  CHECK(c[1]["decision"] == "abandoned");
  CHECK(c[2]["decision"] == "keep");
  CHECK(commits_on_branch(f) == 1);
}

TEST_CASE("a resume logs a commit the log lost as recovered, and a killed candidate as abandoned") {
  Fixture f;
  std::string cmd = agent_script(f, "1) echo \"// FAST\" >> \"$k\"; echo 'go fast' > \"$c/idea.txt\";;");
  CHECK(run_loop(f.world, command_request(f, cmd, {{"max_iters", 1}})) == kExitStopped);
  REQUIRE(commits_on_branch(f) == 1);
  // The keep's line is lost (as after a crash between commit and log write)...
  auto contents = read_log(log_file(f));
  std::string text = contents.header.dump() + "\n";
  for (const auto& l : contents.lines)
    if (l.value("type", "") != "candidate") text += l.dump() + "\n";
  write_file_atomic(log_file(f), text);
  // ...and a second candidate was in flight when the run was killed.
  write_file_atomic(f.dir.path() / ".autoresearch/runs/toy-t/in_flight.json",
                    R"({"id": 2, "idea": "half-done edit", "agent": "command"})");
  std::ofstream(worktree(f) / "kernels/toy/kernel.cpp", std::ios::app) << "// half-done\n";

  RunRequest again = command_request(f, cmd);
  again.resume = "toy-t";
  again.overrides = {{"max_iters", 2}};
  run_loop(f.world, again);
  auto c = by_id(f.lines());
  REQUIRE(c.count(1));
  CHECK(c[1]["decision"] == "keep");
  CHECK(c[1]["recovered"] == true);
  CHECK(c[1]["idea"] == "go fast");
  REQUIRE(c.count(2));
  CHECK(c[2]["decision"] == "abandoned");
  CHECK(c[2]["diff"].get<std::string>().find("+// half-done") != std::string::npos);
  CHECK(f.git({"-C", worktree(f).string(), "status", "--porcelain"}).empty());
  auto resume = of(f.lines(), "resume");
  REQUIRE(resume.size() == 1);
}

TEST_CASE("a harness killed from outside is not the candidate's fault: judged again, never cached as a crash") {
  SECTION("once: the candidate is judged again in a fresh harness") {
    Fixture f;
    f.harness_kills = 1;
    run_loop(f.world, f.request({{"goal", "5x"}, {"max_iters", 1}}));
    auto c = of(f.lines(), "candidate");
    REQUIRE(c.size() == 1);
    CHECK(c[0]["decision"] != "crash");
    CHECK(c[0]["retried"].get<std::string>().find("SIGKILL") != std::string::npos);
  }
  SECTION("twice: an infrastructure failure") {
    Fixture f;
    f.harness_kills = 2;
    run_loop(f.world, f.request({{"goal", "5x"}, {"max_iters", 1}}));
    auto c = of(f.lines(), "candidate");
    REQUIRE(c.size() == 1);
    CHECK(c[0]["decision"] == "error");
    CHECK(c[0]["reason"].get<std::string>().find("killed from outside twice") != std::string::npos);
  }
}

TEST_CASE("--agent-sandbox lets the agent write its worktree but not the user's checkout") {
  Fixture f;
  RealProcessRunner real;
  if (!sandbox_unavailable_reason(real).empty()) {
    WARN("bubblewrap cannot run here: " << sandbox_unavailable_reason(real));
    return;
  }
  fs::path theirs = f.dir.path() / "kernels/toy/problem.cpp";
  std::string cmd = agent_script(f, "1) echo \"// FAST\" >> \"$k\"; echo '// tampered' >> '" + theirs.string() +
                                        "' 2>/dev/null; echo scratch > \"$TMPDIR/agent-scratch\";;");
  int code = run_loop(f.world, command_request(f, cmd, {{"agent_sandbox", true}}));
  CHECK(code == kExitStopped);
  CHECK(read_file(theirs).find("tampered") == std::string::npos);
  auto c = by_id(f.lines());
  CHECK(c[1]["decision"] == "keep");
  CHECK(c[1]["agent_detail"]["sandbox"] == true);
}

// Found on the H200: after a keep, a harness restart tried to reload the judged
// candidate from its cleaned build folder, stopped there, and left the best's
// slot empty, so the final re-measure against the start failed.
TEST_CASE("a harness restart after a keep brings the best back, whatever was cleaned") {
  Fixture f;
  std::string cmd = agent_script(f, R"(
1) echo "// FAST" >> "$k";;
2) echo "// CRASH" >> "$k";;)");
  int code = run_loop(f.world, command_request(f, cmd));
  CHECK(code == kExitStopped);
  auto c = by_id(f.lines());
  CHECK(c[1]["decision"] == "keep");
  CHECK(c[2]["decision"] == "crash");
  auto fin = of(f.lines(), "final");
  REQUIRE(fin.size() == 1);
  CHECK(fin[0]["remeasured"] == true);
  CHECK(fin[0]["speedup_vs_baseline"].get<double>() == Approx(1.0 / 0.7).epsilon(0.01));
}

// An editable file turned into a symbolic link would build whatever it points
// at (the oracle, a file outside the repository) under the editable name.
TEST_CASE("an agent that turns an editable file into a symlink is refused") {
  Fixture f;
  std::string cmd = agent_script(f, R"(1) rm "$k"; ln -s problem.cpp "$k";;)");
  run_loop(f.world, command_request(f, cmd));
  auto c = by_id(f.lines());
  REQUIRE(c.count(1));
  CHECK(c[1]["decision"] == "rejected_by_guard");
  CHECK(c[1]["reason"].get<std::string>().find("symbolic link") != std::string::npos);
  CHECK_FALSE(fs::is_symlink(worktree(f) / "kernels/toy/kernel.cpp"));
}
