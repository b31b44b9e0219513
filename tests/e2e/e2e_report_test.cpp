// `autoresearch report` on a real run of the CPU package: every format reads
// the log the run wrote, and the commands it prints to reproduce the best run.

#include "autoresearch/util/fs.h"
#include "catch.h"
#include "e2e_support.h"

using e2e::of_type;
using e2e::read_log;
using e2e::run_cli;
using e2e::TempRepo;
namespace fs = std::filesystem;

namespace {

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

// A printed command line run by sh in `dir`, its `&& autoresearch` being the binary under test.
ar::ProcessResult shell(const fs::path& dir, std::string command) {
  const std::string tool = "&& autoresearch ";
  if (auto at = command.find(tool); at != std::string::npos) command.replace(at + 3, 12, AR_BINARY);
  ar::ProcessSpec s;
  s.argv = {"sh", "-c", command};
  s.cwd = dir;
  s.env = {{"AUTORESEARCH_HOME", AR_SOURCE_DIR}, {"AUTORESEARCH_CACHE_DIR", AR_E2E_CACHE}, {"NO_COLOR", "1"},
           {"GIT_CONFIG_GLOBAL", "/dev/null"}, {"GIT_CONFIG_SYSTEM", "/dev/null"}};
  s.timeout = std::chrono::seconds(600);
  return ar::RealProcessRunner().run(s);
}

}  // namespace

TEST_CASE("report: a real CPU run in every format, and its reproduce commands work", "[report]") {
  TempRepo repo({"matmul_cpu"});
  // Unique per repository: the reproduce commands make a worktree beside it, in /tmp.
  const std::string tag = "rep" + repo.dir.filename().string().substr(7);
  const std::string run = "matmul_cpu-" + tag;
  // The report needs a run with keeps in a few candidates: evolution's random
  // jumps reach the loop-order win early on this package (bayes first sweeps
  // the start's 12 neighbours, which on a loaded machine may keep nothing); it
  // is the default, named here so the test does not depend on that.
  auto r = run_cli(repo, {"run", "--kernel", "matmul_cpu", "--goal", "1.5x", "--max-iters", "8", "--seed", "7",
                          "--strategy", "evolution", "--tag", tag, "--config",
                          std::string(AR_SOURCE_DIR) + "/configs/quick.json"});
  INFO(r.describe() << ": " << r.err);
  REQUIRE((r.exit_code == 0 || r.exit_code == 3));
  const fs::path log_file = repo.dir / ".autoresearch/runs" / run / "experiments.jsonl";
  auto lines = read_log(log_file);
  auto candidates = of_type(lines, "candidate");
  auto finals = of_type(lines, "final");
  REQUIRE(finals.size() == 1);
  std::vector<nlohmann::json> kept;
  for (const auto& c : candidates)
    if (c["decision"] == "keep") kept.push_back(c);
  REQUIRE(!kept.empty());   // the textbook loop has real headroom
  const size_t workloads = of_type(lines, "baseline").at(0)["bench"]["workloads"].size();

  // JSON: the same counts and result as the log.
  auto j = run_cli(repo, {"report", "--format", "json"});   // the latest run, as `log`
  REQUIRE(j.exit_code == 0);
  auto doc = nlohmann::json::parse(j.out);
  CHECK(doc["run_id"] == run);
  CHECK(doc["candidates"] == candidates.size());
  CHECK(doc["keeps"] == kept.size());
  CHECK(doc["result"]["speedup"].get<double>() == Approx(finals[0]["speedup_vs_baseline"].get<double>()));
  CHECK(doc["result"]["measured"] == "re-measured at the end");
  CHECK(doc["best_commit"] == kept.back()["commit"]);
  CHECK(doc["workloads"].size() == workloads);
  CHECK(doc["winners"].size() == workloads);
  CHECK(doc["finished"] == true);
  for (const auto& w : doc["workloads"]) {
    CHECK(w["start_us"].get<double>() > 0);
    CHECK(w["best_us"].get<double>() > 0);
    CHECK(w["best"]["pct_of_roofline"].get<double>() > 0);
  }

  // Text names the run by id, Markdown and CSV by its folder and its file.
  auto text = run_cli(repo, {"report", run});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("run " + run + " · kernel matmul_cpu") != std::string::npos);
  CHECK(text.out.find("reproduce the best") != std::string::npos);
  auto md = run_cli(repo, {"report", "--format", "md", (repo.dir / ".autoresearch/runs" / run).string()});
  REQUIRE(md.exit_code == 0);
  CHECK(md.out.rfind("# run " + run, 0) == 0);
  auto csv = run_cli(repo, {"report", "--format", "csv", log_file.string()});
  REQUIRE(csv.exit_code == 0);
  CHECK(count(csv.out, "\n") == workloads + 1);

  // HTML into a file: self-contained, the five plots.
  auto html = run_cli(repo, {"report", "--format", "html", "-o", "report.html"});
  REQUIRE(html.exit_code == 0);
  const std::string page = ar::read_file(repo.dir / "report.html");
  CHECK(count(page, "<svg ") == 5);
  CHECK(page.find("<script") == std::string::npos);
  CHECK(repo.git({"status", "--porcelain"}) == "?? report.html");

  auto none = run_cli(repo, {"report", "nosuch"});
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("no run 'nosuch'") != std::string::npos);

  // The printed commands check the best out beside the repository and bench it.
  const auto& reproduce = doc["reproduce"];
  REQUIRE(reproduce.size() == 3);
  const fs::path best_dir = repo.dir.parent_path() / (run + "-best");
  auto checkout = shell(repo.dir, reproduce[0].get<std::string>());
  INFO(checkout.err);
  REQUIRE(checkout.exit_code == 0);
  CHECK(fs::exists(best_dir / "kernels/matmul_cpu/tunables.json"));
  auto bench = shell(repo.dir, reproduce[1].get<std::string>());
  INFO(bench.err);
  CHECK(bench.exit_code == 0);
  CHECK(bench.err.find("| sq192 ") != std::string::npos);   // the table: human output goes to stderr
  CHECK(nlohmann::json::parse(ar::read_file(best_dir / "kernels/matmul_cpu/tunables.json")) == kept.back()["tunables"]);
  repo.git({"worktree", "remove", "--force", best_dir.string()});
}
