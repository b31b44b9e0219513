#pragma once
// The loop's steps, one file each; private to src/loop.
#include <optional>
#include <string>

#include "autoresearch/loop/evaluation.h"
#include "run_context.h"

namespace ar {

// run_setup.cpp
void setup_new_run(RunContext& ctx);
void setup_resume(RunContext& ctx, const std::string& run_id, const nlohmann::json& overrides);
void acquire_locks(RunContext& ctx);
void start_harness(RunContext& ctx);
void make_agent(RunContext& ctx);

// calibration.cpp: the A/A noise and the best-vs-baseline measurement.
// Both return false when the measurement failed (the reason is printed).
bool calibrate_aa(RunContext& ctx, const char* why);
bool measure_vs_baseline(RunContext& ctx, const std::string& slot);

// candidate.cpp: one candidate from proposal to log line.
struct PreparedBuild;
struct CandidateResult {
  std::string decision;
  bool stop_interrupted = false;
  bool infrastructure_failure = false;
};
CandidateResult evaluate_candidate(RunContext& ctx, const Proposal& p, int id, PreparedBuild* prebuilt);

// build_queue.cpp: guard scan + compile, possibly ahead of time on spare cores.
struct PreparedBuild {
  BuildResult build;
  std::optional<std::string> guard_failure;     // the static scan's reason
  std::string preprocess_error;
  double scan_seconds = 0;
};
PreparedBuild prepare_build(RunContext& ctx, const Tunables& t, int id, const std::atomic<bool>* cancel);

// commit_message.cpp
std::string commit_message(const RunContext& ctx, int id, const Proposal& p, const Comparison& full,
                           const Comparison& confirm, double threshold, double vs_baseline);

// sanitizer.cpp: compute-sanitizer memcheck/racecheck on the smallest workload.
// nullopt: clean or not available (*note says which); else the finding.
std::optional<std::string> run_sanitizers(RunContext& ctx, const std::filesystem::path& artifact,
                                          std::string* note);

// Parses compute-sanitizer output: nullopt when it reports no errors.
std::optional<std::string> sanitizer_finding(const std::string& output, int exit_code);

// final.cpp
int finish_run(RunContext& ctx, const std::string& stop_reason, bool interrupted);

}  // namespace ar
