#pragma once
// A ProcessRunner that starts nothing: it records every ProcessSpec and answers
// from a script. Rules are tried newest first, so a test can set a broad rule
// and then override one case; a rule may be limited to N uses.
//
//   FakeProcessRunner runner;
//   runner.on("nvcc", FakeProcessRunner::exited(1, "", "error: boom"));
//   runner.on([](const ProcessSpec& s) { return s.argv.size() > 1 && s.argv[1] == "-V"; },
//             FakeProcessRunner::exited(0, "Cuda compilation tools, release 12.4"));
//   ... code under test ...
//   REQUIRE(runner.count("nvcc") == 1);
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "autoresearch/util/subprocess.h"

namespace ar {

class FakeProcessRunner : public ProcessRunner {
 public:
  using Predicate = std::function<bool(const ProcessSpec&)>;
  using Responder = std::function<ProcessResult(const ProcessSpec&)>;

  static ProcessResult exited(int code, std::string out = "", std::string err = "") {
    ProcessResult r;
    r.exit_code = code;
    r.out = std::move(out);
    r.err = std::move(err);
    return r;
  }
  static ProcessResult timed_out(double seconds) {
    ProcessResult r;
    r.timed_out = true;
    r.timeout_seconds = seconds;
    r.seconds = seconds;
    return r;
  }
  static ProcessResult killed(int signal) {
    ProcessResult r;
    r.signal = signal;
    return r;
  }
  static ProcessResult not_found(const std::string& program) {
    ProcessResult r;
    r.spawn_failed = true;
    r.spawn_error = program + ": No such file or directory";
    return r;
  }

  // argv[0] equal to `program`, or its file name equal to it ("nvcc" matches
  // "/usr/local/cuda/bin/nvcc"). uses < 0: unlimited.
  void on(const std::string& program, ProcessResult result, int uses = -1) {
    on(matches_program(program), std::move(result), uses);
  }
  void on(const std::string& program, Responder respond, int uses = -1) {
    on(matches_program(program), std::move(respond), uses);
  }
  void on(Predicate match, ProcessResult result, int uses = -1) {
    on(std::move(match), Responder([result](const ProcessSpec&) { return result; }), uses);
  }
  void on(Predicate match, Responder respond, int uses = -1) {
    std::lock_guard<std::mutex> lock(mu_);
    rules_.push_front({std::move(match), std::move(respond), uses});
  }

  // Returned when no rule matches (exit 0, no output, unless changed).
  void set_default(ProcessResult result) {
    std::lock_guard<std::mutex> lock(mu_);
    default_result_ = std::move(result);
  }

  ProcessResult run(const ProcessSpec& spec) override {
    Responder respond;
    {
      std::lock_guard<std::mutex> lock(mu_);
      calls_.push_back(spec);
      for (auto& rule : rules_) {
        if (rule.uses == 0 || !rule.match(spec)) continue;
        if (rule.uses > 0) --rule.uses;
        respond = rule.respond;
        break;
      }
      if (!respond) return default_result_;
    }
    return respond(spec);  // outside the lock: a responder may call back into us
  }

  std::vector<ProcessSpec> calls() const {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  size_t count(const std::string& program) const {
    std::lock_guard<std::mutex> lock(mu_);
    size_t n = 0;
    auto match = matches_program(program);
    for (const auto& c : calls_) n += match(c) ? 1 : 0;
    return n;
  }
  // The argv of call i joined with spaces, for readable assertions.
  std::string command_line(size_t i) const {
    std::lock_guard<std::mutex> lock(mu_);
    std::string out;
    for (const auto& a : calls_.at(i).argv) out += (out.empty() ? "" : " ") + a;
    return out;
  }
  void clear_calls() {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.clear();
  }

  static Predicate matches_program(const std::string& program) {
    return [program](const ProcessSpec& spec) {
      if (spec.argv.empty()) return false;
      return spec.argv[0] == program ||
             std::filesystem::path(spec.argv[0]).filename() == program;
    };
  }

 private:
  struct Rule {
    Predicate match;
    Responder respond;
    int uses;
  };
  mutable std::mutex mu_;
  std::deque<Rule> rules_;
  std::vector<ProcessSpec> calls_;
  ProcessResult default_result_ = exited(0);
};

}  // namespace ar
