// What the real wrapper asks of git, checked through the fake runner: the
// commands it builds and how it reads git's machine output.
#include <algorithm>

#include "autoresearch/vcs/git.h"
#include "catch.h"
#include "unit/fakes/fake_process.h"

using namespace ar;
using Paths = std::vector<std::string>;

namespace {

FakeProcessRunner::Predicate git_subcommand(const std::string& name) {
  return [name](const ProcessSpec& spec) {
    return spec.argv.size() > 3 && spec.argv[0] == "git" &&
           std::find(spec.argv.begin() + 3, spec.argv.end(), name) != spec.argv.end();
  };
}

}  // namespace

TEST_CASE("every call is git -C DIR with a timeout and no prompts") {
  FakeProcessRunner runner;
  runner.on(git_subcommand("rev-parse"), FakeProcessRunner::exited(0, std::string(40, 'a') + "\n"));
  auto git = make_real_git(runner, "/repo/wt");
  CHECK(git->head() == std::string(40, 'a'));
  auto calls = runner.calls();
  REQUIRE(calls.size() == 1);
  CHECK(runner.command_line(0) == "git -C /repo/wt rev-parse HEAD");
  CHECK(calls[0].timeout == std::chrono::seconds(60));
  CHECK(calls[0].env.at("GIT_TERMINAL_PROMPT") == "0");
}

TEST_CASE("porcelain status is parsed, renames counting both names") {
  FakeProcessRunner runner;
  std::string status("R  new.cu\0old.cu\0 M a b.cu\0?? dir/u.txt\0", 39);
  runner.on(git_subcommand("status"), FakeProcessRunner::exited(0, status));
  auto git = make_real_git(runner, "/repo");
  CHECK(git->changed_files() == Paths{"a b.cu", "dir/u.txt", "new.cu", "old.cu"});
  CHECK(runner.command_line(0) ==
        "git -C /repo status --porcelain -z --untracked-files=all");
  git->dirty_paths("kernels/k");
  CHECK(runner.command_line(1) ==
        "git -C /repo status --porcelain -z --untracked-files=all -- kernels/k");
}

TEST_CASE("a failing git command throws with its stderr") {
  FakeProcessRunner runner;
  runner.set_default(FakeProcessRunner::exited(128, "", "fatal: something broke\n"));
  auto git = make_real_git(runner, "/repo");
  try {
    git->discard_changes();
    FAIL("expected GitError");
  } catch (const GitError& e) {
    CHECK(std::string(e.what()).find("fatal: something broke") != std::string::npos);
    CHECK(std::string(e.what()).find("reset") != std::string::npos);
  }
  runner.set_default(FakeProcessRunner::not_found("git"));
  try {
    git->head();
    FAIL("expected GitError");
  } catch (const GitError& e) {
    CHECK(std::string(e.what()).find("could not start") != std::string::npos);
  }
}

TEST_CASE("commit_all supplies an identity only where none is configured") {
  FakeProcessRunner runner;
  runner.on(git_subcommand("user.name"), FakeProcessRunner::exited(0, "Ada\n"));
  runner.on(git_subcommand("user.email"), FakeProcessRunner::exited(1));
  auto git = make_real_git(runner, "/repo");
  git->commit_all("msg");
  bool saw_commit = false;
  for (const auto& call : runner.calls()) {
    auto& a = call.argv;
    if (std::find(a.begin(), a.end(), "commit") == a.end()) continue;
    saw_commit = true;
    CHECK(std::find(a.begin(), a.end(), "user.email=autoresearch@localhost") != a.end());
    CHECK(std::find(a.begin(), a.end(), "user.name=autoresearch") == a.end());
    CHECK(call.stdin_data == "msg");
  }
  CHECK(saw_commit);
}
