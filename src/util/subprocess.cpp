#include "autoresearch/util/subprocess.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <thread>

#include "process_group.h"

namespace ar {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// How often cancel and "has the leader exited" are checked while nothing happens.
constexpr milliseconds kPollInterval{50};
constexpr milliseconds kTermGrace{2000};
// After the group is dead, output still in the pipes is read; a process that
// escaped the group (setsid) could hold them open, so this bounds the drain.
constexpr milliseconds kDrainLimit{2000};

// Keeps the last `max` bytes; trims in bulk so appends stay amortised O(1).
void append_tail(std::string& s, const char* data, size_t n, size_t max) {
  s.append(data, n);
  if (s.size() > 2 * max + 65536) s.erase(0, s.size() - max);
}

void trim_tail(std::string& s, size_t max) {
  if (s.size() > max) s.erase(0, s.size() - max);
}

// Reads what is available; closes the fd at EOF or on error.
void read_available(int& fd, std::string& sink, size_t max) {
  char buf[65536];
  while (fd >= 0) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      append_tail(sink, buf, static_cast<size_t>(n), max);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;
    } else {
      detail::close_fd(fd);
    }
  }
}

// Writes what the pipe takes; closes stdin when all is written or the child
// stopped reading (EPIPE), so the child sees EOF.
void write_available(int& fd, const std::string& data, size_t& written) {
  while (fd >= 0 && written < data.size()) {
    ssize_t n = ::write(fd, data.data() + written, data.size() - written);
    if (n > 0) {
      written += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;
    } else {
      break;
    }
  }
  detail::close_fd(fd);
}

milliseconds until(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
  return std::max(left, milliseconds(0));
}

void drain(detail::SpawnedChild& child, std::string& out, std::string& err, size_t max) {
  auto deadline = Clock::now() + kDrainLimit;
  while ((child.stdout_fd >= 0 || child.stderr_fd >= 0) && Clock::now() < deadline) {
    pollfd fds[2] = {{child.stdout_fd, POLLIN, 0}, {child.stderr_fd, POLLIN, 0}};
    if (::poll(fds, 2, static_cast<int>(until(deadline).count())) < 0 && errno != EINTR) break;
    read_available(child.stdout_fd, out, max);
    read_available(child.stderr_fd, err, max);
  }
  detail::close_fd(child.stdout_fd);
  detail::close_fd(child.stderr_fd);
}

}  // namespace

std::string ProcessResult::describe() const {
  if (spawn_failed) return "could not start: " + spawn_error;
  if (cancelled) return "cancelled";
  if (timed_out) return fmt::format("timed out after {:g} s", timeout_seconds);
  return detail::describe_exit({exit_code, signal});
}

ProcessResult RealProcessRunner::run(const ProcessSpec& spec) {
  ProcessResult result;
  auto start = Clock::now();
  auto finish = [&] {
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    trim_tail(result.out, spec.max_output_bytes);
    trim_tail(result.err, spec.max_output_bytes);
    return result;
  };

  detail::SpawnedChild child;
  if (!detail::spawn_child(spec, !spec.stdin_data.empty(), &child, &result.spawn_error)) {
    result.spawn_failed = true;
    return finish();
  }

  const size_t max = spec.max_output_bytes;
  const bool has_deadline = spec.timeout.count() > 0;
  const auto deadline = has_deadline ? start + spec.timeout : Clock::time_point::max();
  size_t written = 0;
  auto idle_wait = milliseconds(1);
  detail::ExitStatus status;

  for (;;) {
    if (spec.cancel && spec.cancel->load()) {
      result.cancelled = true;
      status = detail::terminate_group(child.pid, kTermGrace);
      break;
    }
    if (has_deadline && Clock::now() >= deadline) {
      result.timed_out = true;
      result.timeout_seconds = std::chrono::duration<double>(spec.timeout).count();
      status = detail::terminate_group(child.pid, kTermGrace);
      break;
    }
    milliseconds wait = kPollInterval;
    if (has_deadline) wait = std::min(wait, until(deadline));

    pollfd fds[3] = {{child.stdin_fd, POLLOUT, 0},
                     {child.stdout_fd, POLLIN, 0},
                     {child.stderr_fd, POLLIN, 0}};
    if (child.stdin_fd < 0 && child.stdout_fd < 0 && child.stderr_fd < 0) {
      // The child closed its output but runs on: back off up to the poll interval
      // so quick commands are not held back by it.
      std::this_thread::sleep_for(std::min(idle_wait, wait));
      idle_wait = std::min(idle_wait * 2, kPollInterval);
    } else {
      ::poll(fds, 3, static_cast<int>(wait.count()));  // EINTR: just go round again
    }
    if (child.stdin_fd >= 0 && fds[0].revents) {
      write_available(child.stdin_fd, spec.stdin_data, written);
    }
    if (fds[1].revents) read_available(child.stdout_fd, result.out, max);
    if (fds[2].revents) read_available(child.stderr_fd, result.err, max);

    if (detail::peek_exit(child.pid)) {
      // Processes it left behind in its group would hold the pipes open forever.
      status = detail::reap_group(child.pid);
      break;
    }
  }

  detail::close_fd(child.stdin_fd);
  drain(child, result.out, result.err, max);
  result.exit_code = status.exit_code;
  result.signal = status.signal;
  return finish();
}

std::string find_program(const std::string& name) {
  auto runnable = [](const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
  };
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return runnable(name) ? name : "";
  const char* path_env = std::getenv("PATH");
  std::string path = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
  size_t begin = 0;
  for (;;) {
    size_t end = path.find(':', begin);
    std::string dir = path.substr(begin, end == std::string::npos ? end : end - begin);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (runnable(candidate)) return candidate;
    if (end == std::string::npos) return "";
    begin = end + 1;
  }
}

}  // namespace ar
