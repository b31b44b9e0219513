#pragma once
// The state of one run, shared by the loop's parts (setup, candidate, final).
// Private to src/loop.
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autoresearch/agents/agent.h"
#include "autoresearch/agents/result_cache.h"
#include "autoresearch/build/builder.h"
#include "autoresearch/core/config.h"
#include "autoresearch/core/manifest.h"
#include "autoresearch/core/paths.h"
#include "autoresearch/decide/keep_rule.h"
#include "autoresearch/log/bench_table.h"
#include "autoresearch/log/experiment_log.h"
#include "autoresearch/loop/phase_times.h"
#include "autoresearch/loop/world.h"
#include "autoresearch/measure/harness.h"
#include "autoresearch/util/file_lock.h"

namespace ar {

class Tuner;

// Slots in the harness: the run's starting source, the current best, the
// candidate under judgement, and a second copy of the best for A/A noise.
inline constexpr const char* kBaseSlot = "base";
inline constexpr const char* kIncumbentSlot = "inc";
inline constexpr const char* kCandidateSlot = "cand";
inline constexpr const char* kAaSlot = "aa";
inline constexpr const char* kSweepSlot = "tune";   // a setting of the tune-each sweep

struct Incumbent {
  std::string commit;
  Tunables tunables;
  std::filesystem::path artifact;
  std::string source_hash;
  int candidate_id = 0;         // 0: the baseline
};

struct RunContext {
  World& world;
  RunConfig cfg;
  Paths paths;
  // --gpus: the GPUs measured on, one harness each (cfg.gpu is the first);
  // empty or one: the single-GPU loop, exactly as without --gpus.
  std::vector<int> gpus;
  Manifest manifest;
  double goal = 2;
  unsigned long long seed = 0;

  std::string run_id;
  std::string branch;
  std::filesystem::path run_dir;
  std::filesystem::path worktree;
  std::filesystem::path package_dir;      // the package inside the worktree
  std::string package_prefix;             // repo-relative, e.g. kernels/matmul_cpu
  std::string base_commit;

  std::unique_ptr<Git> repo_git;
  std::unique_ptr<Git> git;               // the worktree
  std::unique_ptr<FileLock> run_lock, device_lock;
  std::vector<std::unique_ptr<FileLock>> other_gpu_locks;   // --gpus: the second GPU's on
  std::optional<Toolchain> toolchain;
  std::unique_ptr<Builder> builder;
  std::filesystem::path harness_exe;
  double harness_build_seconds = 0;   // this run's wait for the harness (0 when it was cached)
  std::unique_ptr<Harness> harness;
  std::unique_ptr<HarnessSession> session;
  Roofline roofline;
  std::unique_ptr<ExperimentLog> log;
  std::unique_ptr<ResultCache> cache;
  CacheContext cache_context;
  std::unique_ptr<Agent> agent;
  Tuner* tuner = nullptr;                 // the agent, when it is the built-in tuner
  KeepRuleConfig rule;

  std::filesystem::path baseline_artifact;
  Incumbent incumbent;
  std::optional<double> incumbent_quick_us; // the incumbent's side of the latest screen
  // The incumbent's preprocessed-source hash (same_kernel_as_incumbent), and the incumbent it is of.
  std::string incumbent_kernel, incumbent_kernel_for;
  double aa_half_width = 0;
  int aa_measured_at = 0;                 // candidate id when the A/A spread was last measured
  bool baseline_aa_pending = false;       // a new run's first A/A, left to the loop (it starts builds first)
  // Called by a keep once it is decided, before the keep is measured against
  // the start and committed, with ctx.incumbent already the candidate's (its
  // commit still the previous one): the loop moves its queue onto it there,
  // so the builds that changes run while the GPU measures.
  std::function<void()> on_keep_decided;
  double vs_baseline = 1;                 // best vs baseline, from the latest interleaved measurement
  std::optional<Comparison> vs_baseline_comparison;

  // What the context pack tells text agents about the incumbent.
  nlohmann::json incumbent_build;         // its build record (registers, spills)
  nlohmann::json incumbent_rows;          // its bench rows on the timed workloads
  std::string recent_build_errors;        // the last failed build's messages
  std::string recent_build_warnings;      // the last built candidate's ptxas performance warnings, "#id: ..."
  std::string profile_text;               // its hardware-counter profile (ncu), when taken
  bool profile_stale = true;              // the incumbent's source changed since the profile
  // Text agents' spending over the whole run (resumes included).
  long long tokens_total = 0;
  double cost_total = 0;
  double max_cost_usd = 0;                // the effective --max-cost (0: none)

  int last_id = 0;                        // highest candidate id logged
  int last_keep_id = 0;
  std::optional<long long> untried_at_keep;   // the agent's untried count at the last keep (or the start)
  int keeps = 0;
  int candidates_this_session = 0;
  int infra_failures_in_a_row = 0;
  double started_at = 0;                  // world clock, this session
  double gpu_seconds = 0;                 // spent measuring, this session
  PhaseTimes phases;                      // where this session's wall time went
  PhaseSeconds phases_logged;             // the totals when the last candidate line took its share
  double phases_logged_at = 0;            // ... and the clock then
  std::vector<ExperimentSummary> history;

  explicit RunContext(World& w) : world(w), phases(w.clock) {}
  // The phases since the previous candidate line, for the next one (and
  // marks them as taken).
  nlohmann::json take_phases();
  Printer& out() { return *world.printer; }
  bool stop_requested() const { return world.stop && world.stop->load(); }
  std::vector<Workload> quick() const;
  std::vector<Workload> timed() const;
  std::vector<Workload> all_declared() const;
  std::filesystem::path builds_dir() const { return run_dir / "builds"; }
  std::filesystem::path context_dir() const { return run_dir / "context"; }
  std::string elapsed_text();
  std::string status_prefix();
};

// Hash of the editable sources as they are in the worktree (not the tunables file).
std::string editable_source_hash(const Manifest& m, const std::filesystem::path& package_dir);
std::string workloads_hash(const Manifest& m);

}  // namespace ar
