#include "harness_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>

namespace ar::test {

namespace {

using Clock = std::chrono::steady_clock;

int decode_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

HarnessProcess::HarnessProcess(const std::string& executable) {
  // A write to a harness that just died must fail, not kill the test.
  signal(SIGPIPE, SIG_IGN);
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    char* argv[] = {const_cast<char*>(executable.c_str()), nullptr};
    execv(executable.c_str(), argv);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  to_child_ = in[1];
  from_child_ = out[0];
}

HarnessProcess::~HarnessProcess() {
  if (pid_ > 0 && exit_code_ < 0) {
    wait_exit(10);
    if (exit_code_ < 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
}

std::optional<nlohmann::json> HarnessProcess::request(const nlohmann::json& req, double timeout_s) {
  return request_text(req.dump(), timeout_s);
}

std::optional<nlohmann::json> HarnessProcess::request_text(const std::string& line, double timeout_s) {
  std::string text = line + "\n";
  size_t done = 0;
  while (done < text.size()) {
    ssize_t w = write(to_child_, text.data() + done, text.size() - done);
    if (w <= 0) return std::nullopt;
    done += static_cast<size_t>(w);
  }
  auto reply = read_line(timeout_s);
  if (!reply) return std::nullopt;
  return nlohmann::json::parse(*reply);
}

std::optional<std::string> HarnessProcess::read_line(double timeout_s) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    auto nl = buffered_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffered_.substr(0, nl);
      buffered_.erase(0, nl + 1);
      return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      timed_out_ = true;
      return std::nullopt;
    }
    pollfd p{from_child_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    char buf[65536];
    ssize_t n = read(from_child_, buf, sizeof buf);
    if (n <= 0) return std::nullopt;  // EOF: the harness is gone
    buffered_.append(buf, static_cast<size_t>(n));
  }
}

int HarnessProcess::wait_exit(double timeout_s) {
  if (exit_code_ >= 0) return exit_code_;
  if (to_child_ >= 0) {
    close(to_child_);
    to_child_ = -1;
  }
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  while (Clock::now() < deadline) {
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exit_code_ = decode_status(status);
      return exit_code_;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return -1;
}

}  // namespace ar::test
