#pragma once
// Child processes started from an argv vector (never through a shell), each in
// its own process group so a timeout or Ctrl-C kills the whole tree (nvcc forks
// cicc/ptxas; a harness may fork too).
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ar {

struct ProcessSpec {
  std::vector<std::string> argv;
  std::filesystem::path cwd;                     // empty: inherit
  std::map<std::string, std::string> env;        // added to / overriding the parent's
  std::chrono::milliseconds timeout{0};          // 0: none
  std::string stdin_data;                        // written, then stdin is closed
  size_t max_output_bytes = 8u << 20;            // per stream; the tail is kept
  // Polled while waiting; when it becomes true the group is killed and the
  // result says cancelled. Lets SIGINT abandon a compile or a measurement.
  const std::atomic<bool>* cancel = nullptr;
};

struct ProcessResult {
  int exit_code = -1;        // meaningful when signal == 0 and not timed out
  int signal = 0;            // the signal that ended it, 0 if it exited
  bool timed_out = false;
  bool cancelled = false;
  bool spawn_failed = false;
  std::string spawn_error;
  std::string out;
  std::string err;
  double seconds = 0;
  double timeout_seconds = 0;  // the limit that was hit, when timed_out

  bool ok() const {
    return !spawn_failed && !timed_out && !cancelled && signal == 0 && exit_code == 0;
  }
  // "exit status 1", "killed by signal 11 (SIGSEGV)", "timed out after 120 s", ...
  std::string describe() const;
};

// Runs a command to completion. The fake in tests/unit/fakes records calls.
class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  virtual ProcessResult run(const ProcessSpec& spec) = 0;
};

class RealProcessRunner : public ProcessRunner {
 public:
  ProcessResult run(const ProcessSpec& spec) override;
};

// A long-lived child spoken to in lines (the harness protocol). stdout carries
// the protocol; stderr is collected (tail kept) for error messages.
class LineChannel {
 public:
  virtual ~LineChannel() = default;
  virtual bool write_line(const std::string& line) = 0;
  // The next stdout line; nullopt on timeout, EOF, or cancel. `why` says which.
  virtual std::optional<std::string> read_line(std::chrono::milliseconds timeout,
                                               std::string* why = nullptr) = 0;
  virtual bool alive() = 0;
  // Kills the whole process group and reaps it. Idempotent.
  virtual void kill() = 0;
  // How it ended ("exit status 0", "killed by signal 6 (SIGABRT)"), after it ended.
  virtual std::string exit_description() = 0;
  // The signal that ended it, 0 if it exited or still runs.
  virtual int exit_signal() { return 0; }
  virtual std::string stderr_tail(size_t max_bytes = 4000) = 0;
};

std::unique_ptr<LineChannel> start_line_channel(const ProcessSpec& spec, std::string* error);

// Finds an executable on PATH; empty when absent.
std::string find_program(const std::string& name);

}  // namespace ar
