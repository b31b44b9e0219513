#pragma once
// Private to src/util: starting a child in its own process group with piped
// stdio, and ending the whole group. Shared by the runner and the line channel
// so both kill trees the same way.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>

#include "autoresearch/util/subprocess.h"

namespace ar::detail {

struct SpawnedChild {
  pid_t pid = -1;
  int stdin_fd = -1;   // parent's write end; -1 when stdin is /dev/null
  int stdout_fd = -1;  // parent's read ends, non-blocking
  int stderr_fd = -1;
};

struct ExitStatus {
  int exit_code = -1;
  int signal = 0;
};

// The parent must survive writing to a child that died: ignore SIGPIPE once,
// process-wide, and get EPIPE from write() instead.
void ignore_sigpipe();

// Starts spec.argv in a new process group. stdin is a pipe when pipe_stdin,
// else /dev/null. On failure returns false and sets *error.
bool spawn_child(const ProcessSpec& spec, bool pipe_stdin, SpawnedChild* child,
                 std::string* error);

// The leader's status if it has ended, without reaping it: an unreaped leader
// keeps its pid (and so the group id) from being reused while we signal it.
std::optional<ExitStatus> peek_exit(pid_t pid);

// SIGTERM to the group, up to `grace` for the leader to go, then SIGKILL to the
// group (stragglers that ignored TERM or outlived the leader), then reap.
ExitStatus terminate_group(pid_t pid, std::chrono::milliseconds grace);

// For a leader that ended by itself: kill what is left of its group, reap it.
ExitStatus reap_group(pid_t pid);

std::string describe_exit(const ExitStatus& status);
std::string signal_name(int sig);  // "SIGSEGV"

void close_fd(int& fd);

}  // namespace ar::detail
