#pragma once
// The loop's steps, one file each; private to src/loop.
#include <deque>
#include <optional>
#include <string>

#include "autoresearch/agents/context_pack.h"
#include "autoresearch/loop/evaluation.h"
#include "run_context.h"

namespace ar {

// run_setup.cpp
void setup_new_run(RunContext& ctx);
// resume_reconcile.cpp: every commit on the run's branch has its keep line; a
// commit the log does not know (its line was never written) is logged as
// recovered. Returns the lines to add to what the log held.
std::vector<nlohmann::json> reconcile_branch_with_log(RunContext& ctx, const std::vector<nlohmann::json>& lines);
void setup_resume(RunContext& ctx, const std::string& run_id, const nlohmann::json& overrides);
void acquire_locks(RunContext& ctx);
// Several GPUs: refuses what they cannot do (a text agent); cfg.gpu becomes the first.
void check_gpus(RunContext& ctx);
void start_harness(RunContext& ctx);
void make_agent(RunContext& ctx);
// The effective token and cost budgets (a paid endpoint always has a finite one).
void resolve_budgets(RunContext& ctx);
// A history entry from a candidate's log line (resume).
ExperimentSummary summary_from_line(const nlohmann::json& line);

// context_for_run.cpp: the context pack for the next proposal (what a text
// agent is told; the agents write it to <run>/context/ for a human to read).
ContextPack context_pack_for(RunContext& ctx, int iteration);

// profile.cpp: a hardware-counter profile (ncu) of an artifact on one small
// timed workload, as text for the context pack; empty + *why when unavailable.
std::string profile_artifact(RunContext& ctx, const std::filesystem::path& artifact, std::string* why);

// llm_agent_factory.cpp: the LLM agent with its HTTP client, from the run's options.
std::unique_ptr<Agent> make_llm_agent(RunContext& ctx);
// Refuses, before anything is created, an agent that cannot start (no key for
// a paid endpoint, bad LLM settings, a sandbox the kernel forbids).
void check_agent_can_start(RunContext& ctx);

// calibration.cpp: the A/A noise and the best-vs-baseline measurement.
// Both return false when the measurement failed (the reason is printed).
bool calibrate_aa(RunContext& ctx, const char* why);
// The pieces of calibrate_aa, for a GPU of a multi-GPU run: the measurement
// (any thread: it only reads ctx) and its line and message (the loop's thread).
MeasureOutcome measure_aa_on(const RunContext& ctx, HarnessSession& session, int after_id);
bool record_aa(RunContext& ctx, const char* why, const MeasureOutcome& r, int after_id, std::optional<int> gpu,
               double* half_width);
bool measure_vs_baseline(RunContext& ctx, const std::string& slot);

// candidate.cpp: one candidate from proposal to log line.
struct PreparedBuild;
struct CandidateResult {
  Decision decision = Decision::Error;
  bool stop_interrupted = false;
  bool infrastructure_failure = false;
  std::string fatal;        // the agent says nothing will work until a human acts: stop, exit 4
  std::string log_failed;   // the log line could not be written: stop, exit 4
};
CandidateResult evaluate_candidate(RunContext& ctx, const Proposal& p, int id, PreparedBuild* prebuilt);

// Pieces of a candidate's record, shared by the candidate and the sweep.
double geomean_us(const MeasureOutcome& r, bool candidate);
nlohmann::json comparison_json(const RunContext& ctx, const std::vector<Workload>& w, const MeasureOutcome& r);
nlohmann::json build_json(const PreparedBuild& pb);
// "#id:" and one "- " line per ptxas performance warning of a build record ({"ptxas_warnings": [...]}),
// or "" when it has none: what the context pack repeats to the agents.
std::string build_warnings_line(int id, const nlohmann::json& build);
std::string first_error_line(const std::string& errors);

// in_flight.cpp: a marker for the candidate being judged, so a run killed with
// -9 still has a record of it: the resume logs it as abandoned, with its diff.
void mark_in_flight(const RunContext& ctx, int id, const nlohmann::json& record);
void clear_in_flight(const RunContext& ctx);
// On resume: logs the candidate a killed run left in flight (if any) as
// abandoned, with the worktree's diff, before the worktree is cleaned.
void log_abandoned_candidate(RunContext& ctx, int last_logged_id);

// tune_each.cpp: the hybrid step. Up to cfg.tune_each settings of a text
// candidate's tunables are built, verified on the quick set and screened; the
// fastest (the candidate as proposed included) is what gets judged.
struct SweepOutcome {
  Tunables best;
  std::filesystem::path artifact;            // the best setting's artifact
  std::optional<MeasureOutcome> screen;      // the best setting's screen against the incumbent
  std::string change;                        // "X 1→2" against the proposed tunables
  nlohmann::json log = nlohmann::json::array();
  bool cancelled = false;
  std::string failure;                       // the candidate itself could not be screened
  StepStatus failure_status = StepStatus::Ok;
};
// proposed_kernel: the proposed setting's kernel_hash (PreparedBuild); settings that compile to a kernel
// already screened in the sweep are not measured again.
SweepOutcome sweep_tunables(RunContext& ctx, int id, const Tunables& proposed, const std::filesystem::path& artifact,
                            const std::string& proposed_kernel, unsigned long long seed);

// build_queue.cpp: guard scan + compile, possibly ahead of time on spare cores.
struct PreparedBuild {
  BuildResult build;
  std::optional<std::string> guard_failure;     // the static scan's reason
  std::string preprocess_error;
  double scan_seconds = 0;
  // sha256 of the preprocessed source: the tunables are -D defines and nothing else, so two settings
  // with the same hash build the same kernel (a tunable the source ignores in this configuration).
  std::string kernel_hash;
};
// The build goes to builds/<id>, or to `out_dir` when given (the sweep's settings).
PreparedBuild prepare_build(RunContext& ctx, const Tunables& t, int id, const std::atomic<bool>* cancel,
                            const std::filesystem::path& out_dir = {});
// Why a tunables-only candidate is the incumbent's own kernel (the tunables it changes are unused by this
// source: it preprocesses to the incumbent's text), or empty. Such a candidate is not measured: that would
// spend GPU time on noise, and a keep would credit a change that changes nothing.
std::string same_kernel_as_incumbent(RunContext& ctx, const Proposal& p, const PreparedBuild& pb);

// commit_message.cpp
std::string commit_message(const RunContext& ctx, int id, const Proposal& p, const Comparison& full,
                           const Comparison& confirm, double threshold, double vs_baseline);

// sanitizer.cpp: compute-sanitizer memcheck/racecheck on the smallest workload of each launch path.
// nullopt: clean or not available (*note says which); else the finding.
// `gpu` < 0: the run's --gpu. `cancel` (else the run's stop signal) abandons it.
std::optional<std::string> run_sanitizers(RunContext& ctx, const std::filesystem::path& artifact,
                                          std::string* note, int gpu = -1,
                                          const std::atomic<bool>* cancel = nullptr);

// Which workloads the sanitizers exercise: the smallest of all, then the smallest of each distinct
// launch path in `launches` (the harness's "launch" replies), smallest first, then the smallest with
// each value of a 0/1 flag parameter that none of those has (1s first), at most six in all.
std::vector<const Workload*> sanitizer_workloads(const Manifest& m, const std::vector<nlohmann::json>& launches);

// The harness script a tool runs: the first workload (the smallest) on every input distribution, each
// other launch path's on the first `other_distributions` only (0: every one).
std::string sanitizer_script(const std::filesystem::path& artifact, const std::vector<const Workload*>& workloads,
                             unsigned long long seed, int other_distributions);
// The arguments that restrict instrumentation to the candidate's entry points (ar_*, launch_plan.h), in the
// spelling this compute-sanitizer's --help shows (--kernel-name, or --filter before 2022); none if neither.
// The harness's own kernels (input generators, poisoning) then run uninstrumented.
std::vector<std::string> sanitizer_kernel_filter(const std::string& help_text);
// Parses compute-sanitizer output: nullopt when it reports no errors.
std::optional<std::string> sanitizer_finding(const std::string& output, int exit_code);

// loop_parts.cpp: shared by both loops.
int build_jobs(const RunContext& ctx);
// Why the run should stop now, or empty. Without count_iters, --max-iters is
// left out: the multi-GPU loop still judges ids it handed out, and they count.
std::string budget_reason(RunContext& ctx, int session_first_id, bool count_iters = true);
// Kept and discarded candidates' build folders go at once; failures' stay for
// the last few.
void clean_build_dir(RunContext& ctx, std::deque<std::filesystem::path>& failures, int id, Decision decision);
// What the agent is told for its next proposal (`next_id`: the highest id handed out).
AgentContext agent_context_for(RunContext& ctx, int next_id);
// The log cannot take a line: says so and how to continue; returns the exit code.
int log_failure_exit(RunContext& ctx, const std::string& why);

// multi_gpu_loop.cpp: the loop with one harness per GPU (ctx.gpus, two or more).
int run_multi_gpu_loop(RunContext& ctx);

// final.cpp
int finish_run(RunContext& ctx, const std::string& stop_reason, bool interrupted);

}  // namespace ar
