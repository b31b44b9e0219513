#pragma once
// The harness as a child process, driven over its stdin/stdout pipes the way
// the driver does (written locally: the tests must not depend on the driver's
// own subprocess code).
#include <sys/types.h>

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace ar::test {

class HarnessProcess {
 public:
  explicit HarnessProcess(const std::string& executable);
  ~HarnessProcess();
  HarnessProcess(const HarnessProcess&) = delete;
  HarnessProcess& operator=(const HarnessProcess&) = delete;

  // Sends one request and waits for its reply line; nullopt when the harness
  // closed its stdout (it died) or no reply came within the timeout.
  std::optional<nlohmann::json> request(const nlohmann::json& req, double timeout_s = 120);
  // Sends raw text (for malformed requests).
  std::optional<nlohmann::json> request_text(const std::string& line, double timeout_s = 120);

  // Closes stdin and waits: the exit code, or 128 + signal when killed by one.
  int wait_exit(double timeout_s = 30);
  bool timed_out() const { return timed_out_; }

 private:
  std::optional<std::string> read_line(double timeout_s);

  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string buffered_;
  bool timed_out_ = false;
  int exit_code_ = -1;
};

}  // namespace ar::test
