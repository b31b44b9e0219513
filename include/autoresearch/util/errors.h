#pragma once
// One exception type for fatal conditions, caught once at the top (cli/main) and
// turned into a message and an exit code. Errors the caller can act on are values.
#include <stdexcept>
#include <string>

namespace ar {

// Exit codes of SPEC §2, one place for all of them.
enum ExitCode : int {
  kExitOk = 0,
  kExitInternal = 1,
  kExitUsage = 2,          // bad usage or bad input; nothing was changed
  kExitStopped = 3,        // run stopped by a budget or the plateau rule
  kExitInfrastructure = 4, // GPU lost, disk full, endpoint down N times in a row
  kExitVerifyFailed = 5,   // verify/bench: the kernel fails verification
  kExitInterrupted = 130,
};

class Fatal : public std::runtime_error {
 public:
  Fatal(ExitCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

// Bad usage or bad input (config, manifest, flags): exit 2.
inline Fatal usage_error(const std::string& message) { return Fatal(kExitUsage, message); }

}  // namespace ar
