#include <signal.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "autoresearch/util/subprocess.h"
#include "catch.h"

using namespace ar;
using namespace std::chrono_literals;

namespace {

std::unique_ptr<LineChannel> start(std::vector<std::string> argv,
                                   const std::atomic<bool>* cancel = nullptr) {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.cancel = cancel;
  std::string error;
  auto channel = start_line_channel(spec, &error);
  REQUIRE(error == "");
  REQUIRE(channel);
  return channel;
}

// Gone, or a zombie waiting for init to reap it: either way it no longer runs.
bool gone_within(pid_t pid, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (::kill(pid, 0) != 0) return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), {});
    auto close = text.rfind(')');
    if (close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z') return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
}

}  // namespace

TEST_CASE("lines go down stdin and come back on stdout") {
  auto channel = start({"cat"});
  CHECK(channel->alive());
  REQUIRE(channel->write_line("{\"cmd\":\"hello\"}"));
  REQUIRE(channel->write_line("second"));
  CHECK(channel->read_line(2s) == std::optional<std::string>("{\"cmd\":\"hello\"}"));
  CHECK(channel->read_line(2s) == std::optional<std::string>("second"));
  channel->kill();
  CHECK_FALSE(channel->alive());
  CHECK(channel->exit_description() == "killed by signal 15 (SIGTERM)");
  channel->kill();  // idempotent
}

TEST_CASE("a long line and many lines arrive whole") {
  auto channel = start({"cat"});
  std::string big(300'000, 'z');
  REQUIRE(channel->write_line(big));
  for (int i = 0; i < 200; ++i) REQUIRE(channel->write_line(std::to_string(i)));
  CHECK(channel->read_line(5s) == std::optional<std::string>(big));
  for (int i = 0; i < 200; ++i) CHECK(channel->read_line(2s) == std::optional(std::to_string(i)));
}

TEST_CASE("a line written in pieces is buffered until its newline") {
  auto channel = start({"sh", "-c", "printf ab; sleep 0.2; printf 'c\\nnext\\n'"});
  CHECK(channel->read_line(3s) == std::optional<std::string>("abc"));
  CHECK(channel->read_line(3s) == std::optional<std::string>("next"));
}

TEST_CASE("a child that exits mid-conversation gives eof and its exit status") {
  auto channel = start({"sh", "-c", "read x; echo \"got $x\"; printf tail; exit 3"});
  REQUIRE(channel->write_line("hi"));
  CHECK(channel->read_line(3s) == std::optional<std::string>("got hi"));
  CHECK(channel->read_line(3s) == std::optional<std::string>("tail"));
  std::string why;
  CHECK_FALSE(channel->read_line(3s, &why));
  CHECK(why == "eof");
  // Writing to the dead child fails instead of killing us with SIGPIPE.
  for (int i = 0; i < 3 && channel->alive(); ++i) std::this_thread::sleep_for(100ms);
  CHECK_FALSE(channel->write_line("anyone there?"));
  CHECK(channel->exit_description() == "exit status 3");
  channel->kill();
  CHECK(channel->exit_description() == "exit status 3");
}

TEST_CASE("a hung child times out the read") {
  auto channel = start({"sleep", "100"});
  std::string why;
  auto begin = std::chrono::steady_clock::now();
  CHECK_FALSE(channel->read_line(150ms, &why));
  CHECK(why == "timeout");
  CHECK(std::chrono::steady_clock::now() - begin >= 150ms);
  CHECK(channel->alive());
}

TEST_CASE("the cancel flag ends a read") {
  std::atomic<bool> cancel{false};
  auto channel = start({"sleep", "100"}, &cancel);
  std::thread flip([&] {
    std::this_thread::sleep_for(100ms);
    cancel = true;
  });
  std::string why;
  CHECK_FALSE(channel->read_line(10s, &why));
  flip.join();
  CHECK(why == "cancelled");
}

TEST_CASE("stderr is collected while stdout is read") {
  // 200 KB on stderr would block the child if nobody drained it.
  auto channel = start(
      {"sh", "-c", "head -c 200000 /dev/zero | tr '\\0' e >&2; echo 'oops: bad' >&2; echo ready; cat"});
  CHECK(channel->read_line(5s) == std::optional<std::string>("ready"));
  for (int i = 0; i < 50 && channel->stderr_tail(10).find("oops") == std::string::npos; ++i) {
    std::this_thread::sleep_for(20ms);
  }
  CHECK(channel->stderr_tail(10) == "oops: bad\n");
  CHECK(channel->stderr_tail().size() == 4000);
}

TEST_CASE("kill takes the whole group down") {
  auto channel = start({"sh", "-c", "sleep 100 & echo $!; cat"});
  auto pid_line = channel->read_line(3s);
  REQUIRE(pid_line);
  channel->kill();
  CHECK(gone_within(std::stoi(*pid_line), 2s));
}

TEST_CASE("a program that cannot start is reported") {
  ProcessSpec spec;
  spec.argv = {"/nonexistent/harness"};
  std::string error;
  CHECK_FALSE(start_line_channel(spec, &error));
  CHECK(error.find("/nonexistent/harness") != std::string::npos);
}
