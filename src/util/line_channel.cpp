// The long-lived child the harness runs in: requests go down stdin a line at a
// time, replies come back on stdout, and stderr is drained by a thread so a
// chatty child never blocks on a full pipe while we wait for its reply.
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <mutex>
#include <thread>
#include <utility>

#include "autoresearch/util/subprocess.h"

#include "process_group.h"

namespace ar {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kPollInterval{50};
constexpr milliseconds kTermGrace{2000};
// A child that stops reading its stdin would block write_line forever.
constexpr milliseconds kWriteStallLimit{60000};
// After kill, how long the stderr thread may wait for the pipe's EOF (a process
// that escaped the group could hold it open).
constexpr milliseconds kStderrDrainLimit{1000};
constexpr size_t kStderrKeep = 256 * 1024;

int poll_ms(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::clamp(left, milliseconds(0), kPollInterval).count());
}

class RealLineChannel : public LineChannel {
 public:
  RealLineChannel(const detail::SpawnedChild& child, const std::atomic<bool>* cancel)
      : child_(child), cancel_(cancel) {
    stderr_thread_ = std::thread([this] { drain_stderr(); });
  }
  ~RealLineChannel() override { kill(); }

  bool write_line(const std::string& line) override {
    std::string data = line + "\n";
    size_t written = 0;
    auto stall_deadline = Clock::now() + kWriteStallLimit;
    while (written < data.size()) {
      if (child_.stdin_fd < 0 || cancelled()) return false;
      ssize_t n = ::write(child_.stdin_fd, data.data() + written, data.size() - written);
      if (n > 0) {
        written += static_cast<size_t>(n);
        stall_deadline = Clock::now() + kWriteStallLimit;
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        if (Clock::now() >= stall_deadline || !alive()) return false;
        // Keep reading replies meanwhile: a child blocked on a full stdout
        // would never drain its stdin, and both of us would wait forever.
        pollfd fds[2] = {{child_.stdin_fd, POLLOUT, 0}, {child_.stdout_fd, POLLIN, 0}};
        ::poll(fds, 2, kPollInterval.count());
        if (fds[1].revents) read_stdout();
        continue;
      }
      detail::close_fd(child_.stdin_fd);  // EPIPE: the child is gone or closed stdin
      return false;
    }
    return true;
  }

  std::optional<std::string> read_line(milliseconds timeout, std::string* why) override {
    auto deadline = Clock::now() + timeout;
    auto fail = [&](const char* reason) -> std::optional<std::string> {
      if (why) *why = reason;
      return std::nullopt;
    };
    for (;;) {
      read_stdout();
      if (auto line = take_line()) return line;
      if (child_.stdout_fd < 0) {
        // A last line without its newline still counts; EOF comes on the next call.
        if (!partial_.empty()) return std::exchange(partial_, std::string());
        return fail("eof");
      }
      if (cancelled()) return fail("cancelled");
      if (Clock::now() >= deadline) return fail("timeout");
      pollfd fd{child_.stdout_fd, POLLIN, 0};
      ::poll(&fd, 1, poll_ms(deadline));
    }
  }

  bool alive() override { return !reaped_ && !detail::peek_exit(child_.pid); }

  void kill() override {
    if (reaped_) return;
    status_ = detail::peek_exit(child_.pid) ? detail::reap_group(child_.pid)
                                            : detail::terminate_group(child_.pid, kTermGrace);
    reaped_ = true;
    detail::close_fd(child_.stdin_fd);
    detail::close_fd(child_.stdout_fd);
    stop_deadline_ms_ = now_ms() + kStderrDrainLimit.count();
    stopping_ = true;
    if (stderr_thread_.joinable()) stderr_thread_.join();
    detail::close_fd(child_.stderr_fd);
  }

  std::string exit_description() override {
    if (reaped_) return detail::describe_exit(status_);
    if (auto status = detail::peek_exit(child_.pid)) return detail::describe_exit(*status);
    return "still running";
  }

  int exit_signal() override {
    if (reaped_) return status_.signal;
    auto status = detail::peek_exit(child_.pid);
    return status ? status->signal : 0;
  }

  std::string stderr_tail(size_t max_bytes) override {
    std::lock_guard<std::mutex> lock(stderr_mu_);
    return stderr_.size() > max_bytes ? stderr_.substr(stderr_.size() - max_bytes) : stderr_;
  }

 private:
  bool cancelled() const { return cancel_ && cancel_->load(); }

  static long long now_ms() {
    return std::chrono::duration_cast<milliseconds>(Clock::now().time_since_epoch()).count();
  }

  void read_stdout() {
    char buf[65536];
    while (child_.stdout_fd >= 0) {
      ssize_t n = ::read(child_.stdout_fd, buf, sizeof buf);
      if (n > 0) {
        partial_.append(buf, static_cast<size_t>(n));
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        return;
      } else {
        detail::close_fd(child_.stdout_fd);
      }
    }
  }

  std::optional<std::string> take_line() {
    auto nl = partial_.find('\n');
    if (nl == std::string::npos) return std::nullopt;
    std::string line = partial_.substr(0, nl);
    partial_.erase(0, nl + 1);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return line;
  }

  void drain_stderr() {
    char buf[16384];
    for (;;) {
      if (stopping_ && now_ms() >= stop_deadline_ms_) return;
      pollfd fd{child_.stderr_fd, POLLIN, 0};
      if (::poll(&fd, 1, kPollInterval.count()) <= 0) continue;
      ssize_t n = ::read(child_.stderr_fd, buf, sizeof buf);
      if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      if (n <= 0) return;  // EOF: the whole group has let go of the pipe
      std::lock_guard<std::mutex> lock(stderr_mu_);
      stderr_.append(buf, static_cast<size_t>(n));
      if (stderr_.size() > 2 * kStderrKeep) stderr_.erase(0, stderr_.size() - kStderrKeep);
    }
  }

  detail::SpawnedChild child_;
  const std::atomic<bool>* cancel_;
  std::string partial_;
  bool reaped_ = false;
  detail::ExitStatus status_;

  std::thread stderr_thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<long long> stop_deadline_ms_{0};
  std::mutex stderr_mu_;
  std::string stderr_;
};

}  // namespace

std::unique_ptr<LineChannel> start_line_channel(const ProcessSpec& spec, std::string* error) {
  detail::SpawnedChild child;
  std::string message;
  if (!detail::spawn_child(spec, true, &child, &message)) {
    if (error) *error = message;
    return nullptr;
  }
  auto channel = std::make_unique<RealLineChannel>(child, spec.cancel);
  if (!spec.stdin_data.empty()) {
    std::string data = spec.stdin_data;
    if (data.back() == '\n') data.pop_back();
    channel->write_line(data);
  }
  return channel;
}

}  // namespace ar
