#pragma once
// The driver's side of the harness protocol (src/harness/PROTOCOL.md). The
// harness is a child process; everything it says is data to check, and a crash
// or hang of it is an outcome (the candidate's fault), not a driver failure.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ar {

struct HarnessReply {
  enum class Status {
    Ok,         // {"ok":true,...}
    Error,      // {"ok":false,"kind":...}: the request failed, the process lives on
    Crashed,    // the process died (EOF) or sent something that is not a reply
    TimedOut,   // no reply in time: the process was killed
    Cancelled,  // SIGINT/SIGTERM while waiting: the process was killed
  };
  Status status = Status::Crashed;
  nlohmann::json body;
  std::string message;   // for non-Ok: what happened, with the harness's stderr tail
  int signal = 0;        // Crashed: the signal that ended the process (SIGKILL from the OOM killer...), else 0
  std::string kind() const { return body.value("kind", ""); }
  bool ok() const { return status == Status::Ok; }
};

// One harness process. Fakes implement this for loop tests.
class Harness {
 public:
  virtual ~Harness() = default;
  // Starts (or restarts) the process and says hello; nullopt + *error on failure.
  virtual std::optional<nlohmann::json> start(std::string* error) = 0;
  virtual HarnessReply call(const nlohmann::json& request, std::chrono::milliseconds timeout) = 0;
  virtual void stop() = 0;
  // A measurement step (a candidate, the A/A noise) is over. A harness that runs
  // as a scheduled job (SLURM) ends its job here and starts a new one, with the
  // slots reloaded, at its next request; a local process lives on.
  virtual void end_step() {}
  // What the executor did since the last take, for the log line of the step
  // ({"jobs":[...],"requeues":N} for SLURM); null when there is nothing to say.
  virtual nlohmann::json take_record() { return nullptr; }
};

// The real one: runs `<exe> --gpu N`.
std::unique_ptr<Harness> make_process_harness(std::filesystem::path exe, int gpu,
                                              const std::atomic<bool>* cancel);

// Sampling settings of one bench request.
struct Sampling {
  int min_samples = 10;
  double min_seconds = 0.5;
  double max_seconds = 15;
  double target_rel_ci = 0.005;
  long long max_samples = 1000000;
  bool cold = true;
  bool deterministic = true;   // the request's "deterministic": how the harness checks timed replays
};

// A planted delay (PROTOCOL.md, bench "pad"): every timed sample of `slot`
// carries `us` more microseconds of busy device time, so the other slot is truly
// faster by a known amount. A benchmarking aid for `calibrate`, never used by a run.
struct TimingPad {
  std::string slot;
  double us = 0;
};

// A harness with memory: which artifact sits in which slot, so that after a
// crash or a hang it restarts the process and reloads everything but the culprit.
class HarnessSession {
 public:
  explicit HarnessSession(Harness& h) : h_(h) {}

  // Starts the process; throws Fatal(kExitInfrastructure) when it cannot.
  const nlohmann::json& start();
  const nlohmann::json& device() const { return device_; }

  HarnessReply load(const std::string& slot, const std::filesystem::path& artifact);
  HarnessReply verify(const std::string& slot, const nlohmann::json& workload, unsigned long long seed,
                      const nlohmann::json& tolerances, bool deterministic,
                      std::chrono::milliseconds timeout);
  HarnessReply bench(const std::vector<std::string>& slots, const nlohmann::json& workload,
                     unsigned long long seed, const Sampling& s, const nlohmann::json& replay_check,
                     std::chrono::milliseconds timeout, const std::optional<TimingPad>& pad = std::nullopt);

  // After a reply that was not Ok or Error: restart and reload every slot except
  // `culprit` (dropped). false + *error when the restart itself fails.
  bool recover(const std::string& culprit, std::string* error);
  void forget(const std::string& slot) { slots_.erase(slot); }
  // The signal that ended the harness in the latest call that saw it die (0: none).
  int last_death_signal() const { return last_death_signal_; }
  void stop() { h_.stop(); }
  // Harness::end_step and take_record: a step is over; what its executor did.
  void end_step() { h_.end_step(); }
  nlohmann::json take_record() { return h_.take_record(); }

 private:
  HarnessReply call(const nlohmann::json& req, std::chrono::milliseconds timeout);
  Harness& h_;
  nlohmann::json device_;
  std::map<std::string, std::filesystem::path> slots_;
  int last_death_signal_ = 0;
};

// A signal no kernel raises by faulting: the harness was killed from outside
// (the OOM killer, an administrator), so its death is not the candidate's doing.
bool killed_from_outside(int signal);

}  // namespace ar
