// `runs`, `adopt` and `clean` end to end, on a finished run of the twomode
// package (one candidate, MODE 1, several times faster: one keep).
#include <fstream>

#include "autoresearch/util/file_lock.h"
#include "catch.h"
#include "e2e_support.h"

using e2e::run_cli;
using e2e::TempRepo;
namespace fs = std::filesystem;

namespace {

const std::string kRun = "twomode-m";
const std::string kBranch = "autoresearch/twomode-m";

// A repository holding twomode and its finished run, which kept MODE=1.
void finish_a_run(const TempRepo& repo) {
  auto r = run_cli(repo, {"run", "--kernel", "twomode", "--goal", "1.2x", "--max-iters", "1", "--tag", "m", "--seed",
                          "1", "--config", std::string(AR_SOURCE_DIR) + "/configs/quick.json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);   // the goal: MODE 1 is several times faster
}

std::string tunables_at(const TempRepo& repo, const std::string& rev) {
  return nlohmann::json::parse(repo.git({"show", rev + ":kernels/twomode/tunables.json"})).dump();
}

}  // namespace

TEST_CASE("runs lists each run with its state, result, counts and branch; --json too", "[runs]") {
  TempRepo repo({"twomode"});
  auto none = run_cli(repo, {"runs"});
  CHECK(none.exit_code == 0);
  CHECK(none.err.find("no runs yet") != std::string::npos);
  finish_a_run(repo);

  auto table = run_cli(repo, {"runs"}, 60);
  INFO(table.err);
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find(kRun) != std::string::npos);
  CHECK(table.out.find("finished") != std::string::npos);

  auto json = run_cli(repo, {"runs", "--json"}, 60);
  REQUIRE(json.exit_code == 0);
  auto runs = nlohmann::json::parse(json.out);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0]["id"] == kRun);
  CHECK(runs[0]["kernel"] == "twomode");
  CHECK(runs[0]["state"] == "finished");
  CHECK(runs[0]["keeps"] == 1);
  CHECK(runs[0]["candidates"] == 1);
  CHECK(runs[0]["branch"] == kBranch);
  CHECK(runs[0]["best_vs_start"].get<double>() > 1.2);
  CHECK(runs[0]["best_measured"] == "re-measured at the end");
  // The same number the log's final line calls the result.
  auto log = e2e::read_log(repo.dir / ".autoresearch/runs" / kRun / "experiments.jsonl");
  CHECK(runs[0]["best_vs_start"] == e2e::of_type(log, "final").back()["speedup_vs_baseline"]);

  // A run whose lock is held is running; clean refuses it.
  std::string holder;
  auto lock = ar::FileLock::try_acquire(repo.dir / ".autoresearch/runs" / kRun / "lock", "run twomode-m (test)", &holder);
  REQUIRE(lock);
  auto running = nlohmann::json::parse(run_cli(repo, {"runs", "--json"}, 60).out);
  CHECK(running[0]["state"] == "running");
  auto refused = run_cli(repo, {"clean", kRun}, 60);
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("is running") != std::string::npos);
  CHECK(fs::exists(repo.dir / ".autoresearch/runs" / kRun / "worktree"));
}

TEST_CASE("adopt writes the best as a patch, or commits it onto the user's branch when it applies", "[adopt]") {
  TempRepo repo({"twomode"});
  finish_a_run(repo);
  const std::string main_before = repo.git({"rev-parse", "HEAD"});

  // As a patch: applies to the user's tree, which it leaves alone.
  auto patch = run_cli(repo, {"adopt", kRun, "--patch", "best.patch"}, 60);
  INFO(patch.err);
  REQUIRE(patch.exit_code == 0);
  CHECK(fs::exists(repo.dir / "best.patch"));
  CHECK(repo.git({"apply", "--check", "best.patch"}).empty());
  fs::remove(repo.dir / "best.patch");
  CHECK(repo.git({"rev-parse", "HEAD"}) == main_before);

  // Refused: a dirty tree under the package.
  std::ofstream(repo.dir / "kernels/twomode/kernel.cpp", std::ios::app) << "// mine\n";
  auto dirty = run_cli(repo, {"adopt", kRun}, 60);
  CHECK(dirty.exit_code == 2);
  CHECK(dirty.err.find("uncommitted changes under kernels/twomode") != std::string::npos);
  repo.git({"checkout", "--", "kernels/twomode/kernel.cpp"});

  // Refused: the user's branch changed what the run changed.
  std::ofstream(repo.dir / "kernels/twomode/tunables.json") << "{ \"MODE\": 0 }\n";
  repo.commit_all("reformat the tunables");
  auto conflict = run_cli(repo, {"adopt", kRun}, 60);
  CHECK(conflict.exit_code == 2);
  CHECK(conflict.err.find("does not apply to your HEAD") != std::string::npos);
  CHECK(conflict.err.find("--patch") != std::string::npos);
  repo.git({"reset", "-q", "--hard", main_before});

  // As a commit: one new commit on main with the run's tunables, nothing else touched.
  std::ofstream(repo.dir / "notes.txt") << "unrelated, staged\n";
  repo.git({"add", "notes.txt"});
  auto adopted = run_cli(repo, {"adopt", kRun}, 60);
  INFO(adopted.err);
  REQUIRE(adopted.exit_code == 0);
  CHECK(repo.git({"rev-parse", "HEAD~1"}) == main_before);
  CHECK(repo.git({"log", "-1", "--format=%s"}).find("autoresearch: adopt run " + kRun) == 0);
  CHECK(tunables_at(repo, "HEAD") == tunables_at(repo, kBranch));
  CHECK(repo.git({"show", "--name-only", "--format=", "HEAD"}) == "kernels/twomode/tunables.json");
  CHECK(repo.git({"diff", "--cached", "--name-only"}) == "notes.txt");   // still staged, not committed
  CHECK(repo.git({"rev-parse", "--abbrev-ref", "HEAD"}) == "main");

  auto again = run_cli(repo, {"adopt", kRun}, 60);
  CHECK(again.exit_code == 2);
  CHECK(again.err.find("already holds") != std::string::npos);
}

TEST_CASE("clean removes a finished run's worktree, so its branch can be deleted; --branch deletes it", "[clean]") {
  TempRepo repo({"twomode"});
  finish_a_run(repo);
  const fs::path worktree = repo.dir / ".autoresearch/runs" / kRun / "worktree";
  REQUIRE(fs::exists(worktree));
  // Merged into main, so only the checked-out worktree stands in `git branch -d`'s way.
  repo.git({"merge", "-q", "--ff-only", kBranch});
  CHECK_THROWS(repo.git({"branch", "-d", kBranch}));

  auto cleaned = run_cli(repo, {"clean", kRun}, 60);
  INFO(cleaned.err);
  REQUIRE(cleaned.exit_code == 0);
  CHECK(!fs::exists(worktree));
  CHECK(repo.git({"worktree", "list"}).find(worktree.string()) == std::string::npos);
  CHECK(fs::exists(repo.dir / ".autoresearch/runs" / kRun / "experiments.jsonl"));   // the record stays
  const std::string best = repo.git({"rev-parse", kBranch});
  CHECK_NOTHROW(repo.git({"branch", "-d", kBranch}));   // no longer checked out anywhere
  auto nothing = run_cli(repo, {"clean", kRun}, 60);
  CHECK(nothing.exit_code == 0);
  CHECK(nothing.err.find("nothing to clean") != std::string::npos);

  repo.git({"branch", kBranch, best});
  auto with_branch = run_cli(repo, {"clean", kRun, "--branch"}, 60);
  INFO(with_branch.err);
  REQUIRE(with_branch.exit_code == 0);
  CHECK(repo.git({"branch", "--list", kBranch}).empty());
  auto gone = run_cli(repo, {"adopt", kRun}, 60);
  CHECK(gone.exit_code == 2);
  CHECK(gone.err.find("is gone") != std::string::npos);
}
