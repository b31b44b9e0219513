#include "autoresearch/util/subprocess.h"

#include <signal.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "catch.h"
#include "unit/fakes/temp_dir.h"

using namespace ar;
using namespace std::chrono_literals;

namespace {

ProcessResult run(std::vector<std::string> argv, std::chrono::milliseconds timeout = 10s) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.timeout = timeout;
  return RealProcessRunner().run(spec);
}

ProcessResult sh(const std::string& script, std::chrono::milliseconds timeout = 10s) {
  return run({"sh", "-c", script}, timeout);
}

// Gone, or a zombie waiting for init to reap it: either way it no longer runs.
bool process_gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), {});
  auto close = text.rfind(')');
  return close == std::string::npos || (close + 2 < text.size() && text[close + 2] == 'Z');
}

bool gone_within(pid_t pid, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!process_gone(pid)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

}  // namespace

TEST_CASE("exit status and output of a plain command") {
  auto ok = run({"true"});
  CHECK(ok.ok());
  CHECK(ok.describe() == "exit status 0");

  auto failed = run({"false"});
  CHECK_FALSE(failed.ok());
  CHECK(failed.exit_code == 1);
  CHECK(failed.describe() == "exit status 1");

  auto both = sh("echo out; echo err >&2; exit 7");
  CHECK(both.out == "out\n");
  CHECK(both.err == "err\n");
  CHECK(both.exit_code == 7);
  CHECK(both.seconds >= 0);
}

TEST_CASE("arguments are passed without a shell") {
  auto r = run({"printf", "%s|", "a b", "$HOME", "*"});
  CHECK(r.out == "a b|$HOME|*|");
}

TEST_CASE("a signal death is described with the signal's name") {
  auto r = sh("kill -SEGV $$");
  CHECK_FALSE(r.ok());
  CHECK(r.signal == SIGSEGV);
  CHECK(r.describe() == "killed by signal 11 (SIGSEGV)");
}

TEST_CASE("a missing program cannot start") {
  auto r = run({"/nonexistent/autoresearch-no-such-program"});
  CHECK(r.spawn_failed);
  CHECK_FALSE(r.ok());
  CHECK(r.describe().rfind("could not start: ", 0) == 0);

  auto on_path = run({"autoresearch-no-such-program-on-path"});
  CHECK(on_path.spawn_failed);

  CHECK(run({}).spawn_failed);
}

TEST_CASE("environment overrides and working directory") {
  TempDir dir;
  ProcessSpec spec;
  spec.argv = {"sh", "-c", "echo \"$AR_TEST_VAR\"; pwd -P; echo \"$PATH\" | grep -c /"};
  spec.env = {{"AR_TEST_VAR", "hello world"}};
  spec.cwd = dir.path();
  auto r = RealProcessRunner().run(spec);
  REQUIRE(r.ok());
  auto real = std::filesystem::canonical(dir.path()).string();
  CHECK(r.out == "hello world\n" + real + "\n1\n");  // PATH still inherited

  spec.cwd = dir / "missing";
  auto missing = RealProcessRunner().run(spec);
  CHECK(missing.spawn_failed);
  CHECK(missing.spawn_error.find("missing") != std::string::npos);
}

TEST_CASE("stdin is written then closed") {
  ProcessSpec spec;
  spec.argv = {"sh", "-c", "cat; echo done"};
  spec.stdin_data = "line one\nline two\n";
  auto r = RealProcessRunner().run(spec);
  CHECK(r.out == "line one\nline two\ndone\n");

  // Without stdin data the child reads EOF at once instead of waiting on a pipe.
  spec.stdin_data.clear();
  spec.timeout = 5s;
  auto empty = RealProcessRunner().run(spec);
  CHECK(empty.out == "done\n");
}

TEST_CASE("a child that ignores its stdin does not block the writer") {
  ProcessSpec spec;
  spec.argv = {"true"};
  spec.stdin_data = std::string(4 << 20, 'x');
  spec.timeout = 5s;
  auto r = RealProcessRunner().run(spec);
  CHECK(r.ok());
}

TEST_CASE("several MB on stdin, stdout and stderr at once do not deadlock") {
  ProcessSpec spec;
  // cat echoes 4 MB back while 3 MB go to stderr after it: both pipes fill up.
  spec.argv = {"sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' e >&2 & cat; wait"};
  spec.stdin_data = std::string(4'000'000, 'i');
  spec.timeout = 10s;
  auto r = RealProcessRunner().run(spec);
  REQUIRE(r.ok());
  CHECK(r.out.size() == 4'000'000);
  CHECK(r.out == spec.stdin_data);
  CHECK(r.err.size() == 3'000'000);
  CHECK(r.err.find_first_not_of('e') == std::string::npos);
}

TEST_CASE("only the tail of a long output is kept") {
  ProcessSpec spec;
  spec.argv = {"sh", "-c", "head -c 500000 /dev/zero | tr '\\0' a; printf END"};
  spec.max_output_bytes = 1000;
  auto r = RealProcessRunner().run(spec);
  REQUIRE(r.ok());
  CHECK(r.out.size() == 1000);
  CHECK(r.out.substr(997) == "END");
}

TEST_CASE("a timeout kills the whole process group, grandchildren included") {
  auto start = std::chrono::steady_clock::now();
  auto r = sh("sleep 100 & echo $!; sleep 100", 300ms);
  auto took = std::chrono::steady_clock::now() - start;
  CHECK(r.timed_out);
  CHECK_FALSE(r.ok());
  CHECK(r.describe() == "timed out after 0.3 s");
  CHECK(took < 3s);
  pid_t grandchild = std::stoi(r.out);
  CHECK(gone_within(grandchild, 2s));
}

TEST_CASE("a group that ignores SIGTERM is killed after the grace period") {
  auto r = sh("trap '' TERM; sleep 100 & echo $!; sleep 100", 200ms);
  CHECK(r.timed_out);
  CHECK(r.seconds < 5);
  CHECK(gone_within(std::stoi(r.out), 2s));
}

TEST_CASE("a background process left behind does not hold up the result") {
  auto start = std::chrono::steady_clock::now();
  auto r = sh("sleep 100 & echo $!; echo bye", 20s);
  CHECK(r.ok());
  CHECK(std::chrono::steady_clock::now() - start < 3s);
  CHECK(gone_within(std::stoi(r.out), 2s));
}

TEST_CASE("the cancel flag ends a running command") {
  std::atomic<bool> cancel{false};
  ProcessSpec spec;
  spec.argv = {"sleep", "100"};
  spec.cancel = &cancel;
  std::thread flip([&] {
    std::this_thread::sleep_for(100ms);
    cancel = true;
  });
  auto r = RealProcessRunner().run(spec);
  flip.join();
  CHECK(r.cancelled);
  CHECK_FALSE(r.ok());
  CHECK(r.describe() == "cancelled");
  CHECK(r.seconds < 3);
}

TEST_CASE("find_program looks on PATH") {
  auto sh_path = find_program("sh");
  CHECK_FALSE(sh_path.empty());
  CHECK(sh_path.find('/') != std::string::npos);
  CHECK(find_program("autoresearch-no-such-program").empty());
  CHECK(find_program(sh_path) == sh_path);
  CHECK(find_program("").empty());
}
