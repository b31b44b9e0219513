// The fake must behave like git where the loop relies on it, or loop tests lie.
#include "unit/fakes/fake_git.h"

#include "catch.h"

using namespace ar;
using Paths = std::vector<std::string>;

TEST_CASE("fake git tracks changes against HEAD, commits and discards") {
  FakeGit git({{"k/kernel.cu", "v1\n"}, {"k/ref.h", "oracle\n"}});
  git.ignore("build/");
  auto base = git.head();
  CHECK(git.changed_files().empty());

  git.write("k/kernel.cu", "v2\n");
  git.write("k/new.h", "x\n");
  git.write("build/k.o", "obj");
  git.remove("k/ref.h");
  CHECK(git.changed_files() == Paths{"k/kernel.cu", "k/new.h", "k/ref.h"});
  CHECK(git.dirty_paths("k/new.h") == Paths{"k/new.h"});
  auto diff = git.diff();
  CHECK(diff.find("-v1\n+v2\n") != std::string::npos);
  CHECK(diff.find("--- /dev/null\n+++ b/k/new.h") != std::string::npos);

  auto kept = git.commit_all("keep");
  CHECK(kept != base);
  CHECK(git.changed_files().empty());
  CHECK(git.log_subjects(base + "..HEAD") == Paths{"keep"});
  CHECK(git.show(base, "k/ref.h") == std::optional<std::string>("oracle\n"));
  CHECK_FALSE(git.show("HEAD", "k/ref.h"));
  CHECK(git.resolve("HEAD~1") == base);

  git.write("k/kernel.cu", "broken");
  git.write("k/junk", "j");
  git.discard_changes();
  CHECK(git.read("k/kernel.cu") == std::optional<std::string>("v2\n"));
  CHECK_FALSE(git.read("k/junk"));
  CHECK_FALSE(git.read("build/k.o"));   // like git clean -x: nothing left behind survives
  CHECK(git.discard_count() == 1);
}

TEST_CASE("fake git records worktrees and refuses a duplicate branch") {
  FakeGit git;
  git.add_worktree("/tmp/wt", "autoresearch/k-1", "HEAD", true);
  CHECK(git.branch_exists("autoresearch/k-1"));
  REQUIRE_THROWS_AS(git.add_worktree("/tmp/wt2", "autoresearch/k-1", "HEAD", true), GitError);
  git.remove_worktree("/tmp/wt");
  CHECK(git.worktrees_added().size() == 1);
  CHECK(git.worktrees_removed().size() == 1);
  git.fail_next_commit();
  REQUIRE_THROWS_AS(git.commit_all("x"), GitError);
  auto sha = git.commit_all("y");
  CHECK(sha == git.head());
}
