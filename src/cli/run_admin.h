#pragma once
// What `runs`, `adopt`, `clean`, `log` and `report` share: finding a run, and git in the
// user's own checkout (not the run's worktree), where only the paths of the
// run's package are ever touched.
#include <filesystem>
#include <string>
#include <vector>

#include "autoresearch/core/paths.h"
#include "autoresearch/log/run_list.h"
#include "autoresearch/util/subprocess.h"

namespace ar {

// The run `id` under <repo>/.autoresearch/runs; a usage error listing the runs
// there when there is none, or when its log cannot be read.
RunSummary find_run(const Paths& paths, const std::string& id);

// `git -C <repo> ...` in the user's checkout.
class CheckoutGit {
 public:
  CheckoutGit(ProcessRunner& runner, std::filesystem::path repo) : runner_(runner), repo_(std::move(repo)) {}
  ProcessResult run(const std::vector<std::string>& args, const std::string& input = "");
  // stdout, trimmed; a Fatal(kExitInfrastructure) with git's message on failure.
  std::string check(const std::vector<std::string>& args, const std::string& input = "");
  // -c options that supply an identity only where the user has none (a bare box).
  std::vector<std::string> identity_fallback();

 private:
  ProcessRunner& runner_;
  std::filesystem::path repo_;
};

std::string first_line(const std::string& text);

// The run whose log was written last under <repo>/.autoresearch/runs (what
// `log` and `report` show without a RUN); a usage error when there is none.
std::string latest_run(const Paths& paths);
// A RUN argument as `log` and `report` take it: an experiments.jsonl file, a
// run folder, or a run id under the repository's runs.
std::filesystem::path run_log_file(const Paths& paths, const std::string& run);
// RUN given as a file or a folder holding a log: readable without a repository.
bool names_log_outside_repo(const std::string& run);

}  // namespace ar
