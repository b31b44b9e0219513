#include "process_group.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

extern char** environ;

namespace ar::detail {
namespace {

// Signals whose disposition a child must not inherit from us: we ignore SIGPIPE,
// and a caller may have set handlers or ignored SIGINT (nohup) for itself.
sigset_t signals_to_default() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGCHLD, SIGALRM, SIGUSR1,
                  SIGUSR2, SIGTSTP, SIGTTIN, SIGTTOU}) {
    sigaddset(&set, sig);
  }
  return set;
}

std::vector<std::string> merged_environment(const std::map<std::string, std::string>& env) {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    std::string entry(*e);
    auto eq = entry.find('=');
    if (eq != std::string::npos && env.count(entry.substr(0, eq))) continue;
    out.push_back(std::move(entry));
  }
  for (const auto& [key, value] : env) out.push_back(key + "=" + value);
  return out;
}

void set_nonblocking(int fd) {
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

ExitStatus from_wait_status(int status) {
  ExitStatus out;
  if (WIFEXITED(status)) {
    out.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    out.signal = WTERMSIG(status);
  }
  return out;
}

ExitStatus reap(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return {};
  }
  return from_wait_status(status);
}

// Closes every fd in `fds` that is open; used on the error paths of spawn.
void close_all(std::initializer_list<int*> fds) {
  for (int* fd : fds) close_fd(*fd);
}

}  // namespace

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

void ignore_sigpipe() {
  static std::once_flag once;
  std::call_once(once, [] { signal(SIGPIPE, SIG_IGN); });
}

bool spawn_child(const ProcessSpec& spec, bool pipe_stdin, SpawnedChild* child,
                 std::string* error) {
  ignore_sigpipe();
  if (spec.argv.empty()) {
    *error = "empty command";
    return false;
  }
  if (!spec.cwd.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(spec.cwd, ec)) {
      *error = "working directory " + spec.cwd.string() + " does not exist";
      return false;
    }
  }
  // O_CLOEXEC: children started concurrently by other threads must not inherit
  // our pipe ends, or they would hold them open and we would never see EOF.
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  if ((pipe_stdin && pipe2(in, O_CLOEXEC) != 0) || pipe2(out, O_CLOEXEC) != 0 ||
      pipe2(err, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + strerror(errno);
    close_all({&in[0], &in[1], &out[0], &out[1], &err[0], &err[1]});
    return false;
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (pipe_stdin) {
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  } else {
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  }
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, spec.cwd.c_str());

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t empty_mask;
  sigemptyset(&empty_mask);
  posix_spawnattr_setsigmask(&attr, &empty_mask);
  sigset_t defaults = signals_to_default();
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_storage;
  std::vector<char*> envp;
  char** env = environ;
  if (!spec.env.empty()) {
    env_storage = merged_environment(spec.env);
    for (auto& e : env_storage) envp.push_back(e.data());
    envp.push_back(nullptr);
    env = envp.data();
  }

  pid_t pid = -1;
  bool search_path = spec.argv[0].find('/') == std::string::npos;
  int rc = search_path ? posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), env)
                       : posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), env);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);

  close_all({&in[0], &out[1], &err[1]});  // the child's ends
  if (rc != 0) {
    *error = spec.argv[0] + ": " + strerror(rc);
    close_all({&in[1], &out[0], &err[0]});
    return false;
  }
  if (pipe_stdin) set_nonblocking(in[1]);
  set_nonblocking(out[0]);
  set_nonblocking(err[0]);
  *child = SpawnedChild{pid, in[1], out[0], err[0]};
  return true;
}

std::optional<ExitStatus> peek_exit(pid_t pid) {
  siginfo_t info{};
  if (waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return ExitStatus{};
  if (info.si_pid == 0) return std::nullopt;  // still running
  ExitStatus out;
  if (info.si_code == CLD_EXITED) {
    out.exit_code = info.si_status;
  } else {
    out.signal = info.si_status;
  }
  return out;
}

ExitStatus terminate_group(pid_t pid, std::chrono::milliseconds grace) {
  ::kill(-pid, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + grace;
  while (!peek_exit(pid) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return reap_group(pid);
}

ExitStatus reap_group(pid_t pid) {
  // The leader is unreaped here, so -pid still names our group and no other.
  ::kill(-pid, SIGKILL);
  return reap(pid);
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

std::string describe_exit(const ExitStatus& status) {
  if (status.signal != 0) {
    return "killed by signal " + std::to_string(status.signal) + " (" +
           signal_name(status.signal) + ")";
  }
  return "exit status " + std::to_string(status.exit_code);
}

}  // namespace ar::detail
