// The real git wrapper against real repositories in temp dirs. Global and
// system git config are switched off so the user's settings cannot leak in and
// the "no identity configured" fallback is what runs.
#include "autoresearch/vcs/git.h"

#include <stdlib.h>

#include <algorithm>

#include "autoresearch/util/fs.h"
#include "autoresearch/util/subprocess.h"
#include "catch.h"
#include "unit/fakes/temp_dir.h"

using namespace ar;
namespace fs = std::filesystem;
using Paths = std::vector<std::string>;

namespace {

void hermetic_git() {
  ::setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
  ::setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
}

std::string git_out(const fs::path& dir, std::vector<std::string> args) {
  ProcessSpec spec;
  spec.argv = {"git", "-C", dir.string()};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.timeout = std::chrono::seconds(30);
  auto r = RealProcessRunner().run(spec);
  if (!r.ok()) FAIL(r.describe() + ": " + r.err);
  return r.out;
}

// A repository with one commit: a kernel, a header, and build/ ignored.
struct Repo {
  TempDir tmp;
  fs::path root = tmp / "repo";
  RealProcessRunner runner;
  std::unique_ptr<Git> git;

  Repo() {
    hermetic_git();
    fs::create_directories(root);
    git_out(root, {"init", "-q", "-b", "main"});
    write_file_atomic(root / "kernels/k/kernel.cu", "__global__ void k() {}\n");
    write_file_atomic(root / "kernels/k/reference.h", "// oracle\n");
    write_file_atomic(root / ".gitignore", "build/\n*.o\n");
    git = make_real_git(runner, root);
    git->commit_all("initial");
  }
};

}  // namespace

TEST_CASE("revisions, branches, toplevel and log") {
  Repo repo;
  auto& git = *repo.git;
  auto first = git.head();
  CHECK(first.size() == 40);
  CHECK(git.resolve("HEAD") == first);
  CHECK(git.resolve("main") == first);
  CHECK_FALSE(git.resolve("no-such-branch"));
  CHECK(git.branch_exists("main"));
  CHECK_FALSE(git.branch_exists("autoresearch/k-1"));
  CHECK(fs::equivalent(git.toplevel(), repo.root));

  write_file_atomic(repo.root / "kernels/k/kernel.cu", "v2\n");
  auto second = git.commit_all("kernel: 1.20x (tile 64)\n\nbody with numbers");
  CHECK(second != first);
  CHECK(git.head() == second);
  CHECK(git.log_subjects(first + "..HEAD") == Paths{"kernel: 1.20x (tile 64)"});
  CHECK(git.log_subjects("HEAD..HEAD").empty());
  // No identity configured: the fallback one is used.
  CHECK(git_out(repo.root, {"log", "-1", "--format=%an <%ae>"}) ==
        "autoresearch <autoresearch@localhost>\n");
}

TEST_CASE("show returns committed bytes or nothing") {
  Repo repo;
  auto& git = *repo.git;
  CHECK(git.show("HEAD", "kernels/k/reference.h") == std::optional<std::string>("// oracle\n"));
  CHECK_FALSE(git.show("HEAD", "kernels/k/missing.h"));
  CHECK_FALSE(git.show("no-such-rev", "kernels/k/reference.h"));
  CHECK_FALSE(git.show("HEAD", "kernels/k"));  // a tree, not a file
}

TEST_CASE("files_at lists a folder's committed files at a revision, from the top") {
  Repo repo;
  auto& git = *repo.git;
  CHECK(git.files_at("HEAD", "kernels/k") == Paths{"kernels/k/kernel.cu", "kernels/k/reference.h"});
  write_file_atomic(repo.root / "kernels/k/sub/extra.h", "// new\n");
  write_file_atomic(repo.root / "kernels/k/untracked.h", "// not committed\n");
  git.commit_all("more");
  fs::remove(repo.root / "kernels/k/untracked.h");   // committed, then gone from the tree: still listed
  CHECK(git.files_at("HEAD", "kernels/k") ==
        Paths{"kernels/k/kernel.cu", "kernels/k/reference.h", "kernels/k/sub/extra.h", "kernels/k/untracked.h"});
  CHECK(git.files_at("HEAD~1", "kernels/k") == Paths{"kernels/k/kernel.cu", "kernels/k/reference.h"});
  CHECK(git.files_at("HEAD", "kernels/none").empty());
  // bound below the top, the paths are still from the top
  auto sub = make_real_git(repo.runner, repo.root / "kernels");
  CHECK(sub->files_at("HEAD~1", "kernels/k") == Paths{"kernels/k/kernel.cu", "kernels/k/reference.h"});
  CHECK_THROWS_AS(git.files_at("no-such-rev", "kernels/k"), GitError);
}

TEST_CASE("changes, diff, commit and discard in a worktree") {
  Repo repo;
  auto base = repo.git->head();
  auto wt_dir = repo.tmp / "wt";
  repo.git->add_worktree(wt_dir, "autoresearch/k-1", "HEAD", true);
  CHECK(repo.git->branch_exists("autoresearch/k-1"));
  REQUIRE(fs::exists(wt_dir / "kernels/k/kernel.cu"));
  auto wt = make_real_git(repo.runner, wt_dir);
  CHECK(wt->changed_files().empty());

  write_file_atomic(wt_dir / "kernels/k/kernel.cu", "__global__ void k() { /* faster */ }\n");
  write_file_atomic(wt_dir / "kernels/k/tile.h", "#define TILE 64\n");  // untracked
  write_file_atomic(wt_dir / "build/kernel.o", "object");                 // ignored
  fs::remove(wt_dir / "kernels/k/reference.h");

  CHECK(wt->changed_files() ==
        Paths{"kernels/k/kernel.cu", "kernels/k/reference.h", "kernels/k/tile.h"});
  CHECK(wt->dirty_paths("kernels/k/tile.h") == Paths{"kernels/k/tile.h"});
  CHECK(wt->dirty_paths("build").empty());

  auto diff = wt->diff();
  CHECK(diff.find("+__global__ void k() { /* faster */ }") != std::string::npos);
  CHECK(diff.find("+++ b/kernels/k/tile.h") != std::string::npos);
  CHECK(diff.find("+#define TILE 64") != std::string::npos);
  CHECK(diff.find("deleted file mode") != std::string::npos);
  CHECK(diff.find("build/") == std::string::npos);
  // diff() left the index alone: the new file is still untracked.
  CHECK(git_out(wt_dir, {"status", "--porcelain", "--", "kernels/k/tile.h"}) ==
        "?? kernels/k/tile.h\n");

  auto kept = wt->commit_all("keep 1");
  CHECK(wt->changed_files().empty());
  CHECK(wt->log_subjects(base + "..HEAD") == Paths{"keep 1"});
  CHECK(wt->show(kept, "kernels/k/tile.h") == std::optional<std::string>("#define TILE 64\n"));
  CHECK(repo.git->resolve("autoresearch/k-1") == kept);
  CHECK(repo.git->head() == base);  // the user's checkout did not move

  SECTION("discard drops tracked, untracked and ignored changes: nothing an agent leaves survives") {
    write_file_atomic(wt_dir / "kernels/k/kernel.cu", "broken\n");
    write_file_atomic(wt_dir / "kernels/k/scratch/new.cu", "junk\n");
    write_file_atomic(wt_dir / "notes.txt", "junk\n");
    git_out(wt_dir, {"add", "notes.txt"});  // even a staged new file goes
    REQUIRE(wt->changed_files().size() == 3);
    wt->discard_changes();
    CHECK(wt->changed_files().empty());
    CHECK(read_file(wt_dir / "kernels/k/kernel.cu") == "__global__ void k() { /* faster */ }\n");
    CHECK_FALSE(fs::exists(wt_dir / "kernels/k/scratch"));
    CHECK_FALSE(fs::exists(wt_dir / "notes.txt"));
    CHECK_FALSE(fs::exists(wt_dir / "build/kernel.o"));
    CHECK(wt->head() == kept);
  }

  SECTION("ignored files count as changes under the package, not elsewhere") {
    write_file_atomic(wt_dir / "kernels/k/hidden.o", "int cheat;\n");   // *.o is ignored
    write_file_atomic(wt_dir / "build/other.o", "object");
    CHECK(wt->changed_files().empty());
    CHECK(wt->changed_files("kernels/k") == Paths{"kernels/k/hidden.o"});
  }

  SECTION("restore undoes an agent's commits and branch switches") {
    write_file_atomic(wt_dir / "kernels/k/kernel.cu", "sneaky\n");
    wt->commit_all("agent commit");
    git_out(wt_dir, {"checkout", "-q", "-b", "elsewhere"});
    CHECK(wt->current_branch() == "elsewhere");
    wt->restore("autoresearch/k-1", kept);
    CHECK(wt->current_branch() == "autoresearch/k-1");
    CHECK(wt->head() == kept);
    CHECK(read_file(wt_dir / "kernels/k/kernel.cu") == "__global__ void k() { /* faster */ }\n");
  }

  SECTION("commits lists sha and whole message, oldest first") {
    wt->commit_all("keep 2\n\nrun: k-1 candidate 7\n");
    auto list = wt->commits(base + "..HEAD");
    REQUIRE(list.size() == 2);
    CHECK(list[0].sha == kept);
    CHECK(list[0].message.rfind("keep 1", 0) == 0);
    CHECK(list[1].message.find("run: k-1 candidate 7") != std::string::npos);
  }

  SECTION("a diff before a commit does not get in the commit's way") {
    write_file_atomic(wt_dir / "kernels/k/extra.h", "x\n");
    CHECK(wt->diff().find("extra.h") != std::string::npos);
    wt->commit_all("keep 2");
    CHECK(wt->show("HEAD", "kernels/k/extra.h") == std::optional<std::string>("x\n"));
    wt->discard_changes();
    CHECK(wt->show("HEAD", "kernels/k/extra.h") == std::optional<std::string>("x\n"));
  }

  SECTION("worktrees are removed, even when their folder is already gone") {
    wt.reset();
    repo.git->remove_worktree(wt_dir);
    CHECK_FALSE(fs::exists(wt_dir));
    CHECK(repo.git->branch_exists("autoresearch/k-1"));  // the run's branch stays

    // Resume: the branch exists, so no -b.
    repo.git->add_worktree(wt_dir, "autoresearch/k-1", "", false);
    CHECK(make_real_git(repo.runner, wt_dir)->head() == kept);
    fs::remove_all(wt_dir);
    repo.git->remove_worktree(wt_dir);
    auto list = git_out(repo.root, {"worktree", "list", "--porcelain"});
    CHECK(list.find("wt") == std::string::npos);
  }
}

TEST_CASE("dirty_paths for a clean check before a run") {
  Repo repo;
  CHECK(repo.git->dirty_paths("kernels/k").empty());
  write_file_atomic(repo.root / "kernels/k/reference.h", "// tampered\n");
  write_file_atomic(repo.root / "other.txt", "unrelated\n");
  CHECK(repo.git->dirty_paths("kernels/k") == Paths{"kernels/k/reference.h"});
  CHECK(repo.git->dirty_paths("") == Paths{"kernels/k/reference.h", "other.txt"});
}

TEST_CASE("git failures carry git's own message") {
  Repo repo;
  try {
    repo.git->add_worktree(repo.tmp / "wt2", "main", "HEAD", true);  // branch exists
    FAIL("expected GitError");
  } catch (const GitError& e) {
    CHECK(std::string(e.what()).find("already exists") != std::string::npos);
  }
  TempDir not_a_repo;
  RealProcessRunner runner;
  auto git = make_real_git(runner, not_a_repo.path());
  CHECK_FALSE(git->resolve("HEAD"));
  REQUIRE_THROWS_AS(git->head(), GitError);
  try {
    git->changed_files();
  } catch (const GitError& e) {
    CHECK(std::string(e.what()).find("not a git repository") != std::string::npos);
  }
}
