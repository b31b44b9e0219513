#pragma once
// `autoresearch runs`: every run under <repo>/.autoresearch/runs, read from its
// log and its lock, and the one number that is a run's result.
#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autoresearch/log/experiment_log.h"

namespace ar {

// The result of a run is the latest interleaved measurement of its best against
// the start: at each keep, on resume, and re-measured at the end (the `final`
// line). Everything that prints "best ... vs the start" prints this.
struct RunResult {
  std::optional<double> speedup;                 // nullopt: nothing measured yet
  std::optional<std::array<double, 2>> ci;       // 95%
  std::string measured;                          // "re-measured at the end", "at keep #4", "nothing kept"
};
RunResult current_result(const LogContents& log);

enum class RunState { Running, Finished, Interrupted, Failed, Unreadable };
const char* run_state_name(RunState s);

struct RunSummary {
  std::string id;                 // the folder name
  std::filesystem::path dir;
  RunState state = RunState::Unreadable;
  std::string detail;             // the stop reason, the lock's holder, or why the log is unreadable
  std::string kernel, branch, base_commit, package, started;
  RunResult result;
  int candidates = 0;             // highest candidate id logged
  int keeps = 0;
  bool goal_reached = false;
  bool has_worktree = false;
};

// One run folder (holding experiments.jsonl). Running means its lock is held
// now; otherwise the state comes from the log's last `final` line (absent after
// the last start or resume: the process was killed, so it is interrupted).
RunSummary summarize_run(const std::filesystem::path& run_dir);
// Every run folder under `runs_dir` with a log, oldest first.
std::vector<RunSummary> list_runs(const std::filesystem::path& runs_dir);

std::string render_run_list(const std::vector<RunSummary>& runs, size_t width);
nlohmann::json to_json(const RunSummary& r);

}  // namespace ar
