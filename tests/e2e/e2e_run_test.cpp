// `autoresearch run` end to end on CPU packages, in throwaway git repositories.
#include <signal.h>

#include <fstream>
#include <set>

#include "catch.h"
#include "e2e_support.h"

using e2e::of_type;
using e2e::read_log;
using e2e::run_cli;
using e2e::TempRepo;

namespace {

const std::vector<std::string> kQuick = {"--config", std::string(AR_SOURCE_DIR) + "/configs/quick.json"};

std::vector<std::string> args(std::vector<std::string> a) {
  a.insert(a.end(), kQuick.begin(), kQuick.end());
  return a;
}

}  // namespace

TEST_CASE("a run keeps the improvements the tuner really found, and the log and the branch agree") {
  TempRepo repo({"matmul_cpu"});
  auto r = run_cli(repo, args({"run", "--kernel", "matmul_cpu", "--goal", "1.5x", "--max-iters", "30",
                                "--seed", "7", "--tag", "e2e"}));
  INFO(r.err);
  REQUIRE((r.exit_code == 0 || r.exit_code == 3));
  auto lines = read_log(repo.dir / ".autoresearch/runs/matmul_cpu-e2e/experiments.jsonl");
  REQUIRE(lines.at(0).value("type", "") == "header");
  CHECK(lines.at(0).value("branch", "") == "autoresearch/matmul_cpu-e2e");
  auto candidates = of_type(lines, "candidate");
  auto finals = of_type(lines, "final");
  REQUIRE(finals.size() == 1);
  REQUIRE(!of_type(lines, "baseline").empty());

  std::vector<nlohmann::json> kept;
  for (const auto& c : candidates)
    if (c["decision"] == "keep") kept.push_back(c);
  REQUIRE(!kept.empty());   // the default is the textbook loop; real headroom exists

  // The branch holds exactly one commit per keep, in order, each naming its candidate.
  std::string base = lines[0]["base_commit"];
  std::string subjects = repo.git({"log", "--reverse", "--format=%s", base + "..autoresearch/matmul_cpu-e2e"});
  std::vector<std::string> commits;
  for (size_t s = 0, e; s < subjects.size(); s = e + 1) {
    e = subjects.find('\n', s);
    if (e == std::string::npos) e = subjects.size();
    commits.push_back(subjects.substr(s, e - s));
  }
  REQUIRE(commits.size() == kept.size());
  for (size_t i = 0; i < kept.size(); ++i) {
    CHECK(commits[i].find("keep #" + std::to_string(kept[i]["id"].get<int>()) + " ") != std::string::npos);
    CHECK(kept[i]["commit"].is_string());
    CHECK(kept[i]["speedup"].get<double>() > 1.0);
  }
  // What the branch builds is what was measured last.
  auto head_tunables = nlohmann::json::parse(repo.git({"show", "autoresearch/matmul_cpu-e2e:kernels/matmul_cpu/tunables.json"}));
  CHECK(head_tunables == kept.back()["tunables"]);
  // The final line re-measured the best against the start.
  CHECK(finals[0]["remeasured"] == true);
  CHECK(finals[0]["speedup_vs_baseline"].get<double>() > 1.2);
  CHECK((r.exit_code == 0) == finals[0]["goal_reached"].get<bool>());
  // The user's checkout is untouched: still on main, clean.
  CHECK(repo.git({"rev-parse", "--abbrev-ref", "HEAD"}) == "main");
  CHECK(repo.git({"status", "--porcelain"}).empty());

  // `log --json` tells the same story.
  auto lj = run_cli(repo, {"log", "--json"});
  REQUIRE(lj.exit_code == 0);
  auto doc = nlohmann::json::parse(lj.out);
  CHECK(doc["experiments"].size() == lines.size() - 1);
  auto table = run_cli(repo, {"log"});
  CHECK(table.exit_code == 0);
  CHECK(table.out.find("keep") != std::string::npos);
}

TEST_CASE("build failures, crashes, hangs and wrong results are logged with their decision and the loop goes on") {
  TempRepo repo({"planted"});
  auto r = run_cli(repo, args({"run", "--kernel", "planted", "--goal", "100x", "--max-iters", "6", "--strategy",
                                "random", "--seed", "3", "--tag", "t", "--verify-timeout-s", "5", "--bench-timeout-s", "5",
                                "--plateau", "0"}));
  INFO(r.err);
  REQUIRE(r.exit_code == 3);   // budget reached, goal not
  auto lines = read_log(repo.dir / ".autoresearch/runs/planted-t/experiments.jsonl");
  std::map<long long, std::string> by_mode;
  for (const auto& c : of_type(lines, "candidate")) by_mode[c["tunables"]["MODE"].get<long long>()] = c["decision"];
  CHECK(by_mode[1] == "build_error");
  CHECK(by_mode[2] == "crash");
  CHECK(by_mode[3] == "timeout");
  CHECK(by_mode[4] == "wrong");
  CHECK(by_mode[5] == "keep");
  for (const auto& c : of_type(lines, "candidate")) {
    CHECK(!c.value("reason", "").empty());
    if (c["decision"] != "keep") CHECK(c["commit"].is_null());
  }
  // Failed candidates left nothing behind in the worktree.
  auto wt = repo.dir / ".autoresearch/runs/planted-t/worktree";
  e2e::TempRepo* unused = nullptr;
  (void)unused;
  ar::RealProcessRunner runner;
  ar::ProcessSpec s;
  s.argv = {"git", "-C", wt.string(), "status", "--porcelain"};
  auto st = runner.run(s);
  CHECK(st.out.empty());
}

TEST_CASE("SIGINT stops cleanly with 130, a second run cannot share the worktree, and --resume continues") {
  TempRepo repo({"matmul_cpu"});
  auto log_file = repo.dir / ".autoresearch/runs/matmul_cpu-sig/experiments.jsonl";
  {
    e2e::Background bg(repo, args({"run", "--kernel", "matmul_cpu", "--goal", "100x", "--max-iters", "200",
                                    "--seed", "11", "--tag", "sig", "--plateau", "0"}));
    bool started = e2e::wait_until(
        [&] { return std::filesystem::exists(log_file) && of_type(read_log(log_file), "candidate").size() >= 2; }, 600);
    REQUIRE(started);
    // The run is locked: a second process on the same run is refused at once.
    auto second = run_cli(repo, {"run", "--resume", "matmul_cpu-sig"}, 120);
    CHECK(second.exit_code == 2);
    CHECK(second.err.find("in use") != std::string::npos);
    bg.signal(SIGINT);
    CHECK(bg.wait(120) == 130);
  }
  auto lines = read_log(log_file);
  auto finals = of_type(lines, "final");
  REQUIRE(finals.size() == 1);
  CHECK(finals[0]["stop_reason"] == "interrupted by a signal");
  int last_id = 0;
  for (const auto& c : of_type(lines, "candidate")) last_id = std::max(last_id, c["id"].get<int>());

  auto r = run_cli(repo, args({"run", "--resume", "matmul_cpu-sig", "--max-iters", std::to_string(last_id + 2)}));
  INFO(r.err);
  CHECK((r.exit_code == 3 || r.exit_code == 0));
  auto after = read_log(log_file);
  REQUIRE(of_type(after, "resume").size() == 1);
  std::set<int> ids;
  for (const auto& c : of_type(after, "candidate")) CHECK(ids.insert(c["id"].get<int>()).second);   // no id twice
  CHECK(*ids.rbegin() > last_id);
  CHECK(of_type(after, "final").size() == 2);
}

TEST_CASE("a malformed manifest is refused with exit 2, naming the file and the field, and nothing changes") {
  TempRepo repo({"matmul_cpu"});
  auto manifest = repo.dir / "kernels/matmul_cpu/manifest.json";
  auto j = nlohmann::json::parse(std::ifstream(manifest));
  j["tunables"][1]["values"] = nlohmann::json::array();
  std::ofstream(manifest) << j.dump(2);
  repo.commit_all("break the manifest");
  auto r = run_cli(repo, {"run", "--kernel", "matmul_cpu", "--max-iters", "1"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("manifest.json") != std::string::npos);
  CHECK(r.err.find("tunables[1].values") != std::string::npos);
  CHECK(repo.git({"branch", "--list", "autoresearch/*"}).empty());
  CHECK(!std::filesystem::exists(repo.dir / ".autoresearch/runs"));
}

TEST_CASE("an unknown kernel is refused with exit 2 and the list of known ones") {
  TempRepo repo({"matmul_cpu"});
  auto r = run_cli(repo, {"run", "--kernel", "no_such_kernel"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("unknown kernel 'no_such_kernel'") != std::string::npos);
  CHECK(r.err.find("matmul_cpu") != std::string::npos);
}
