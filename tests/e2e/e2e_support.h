#pragma once
// Helpers for the end-to-end tests: a throwaway git repository holding kernel
// packages, and the real autoresearch binary run inside it.
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autoresearch/util/subprocess.h"

namespace e2e {

struct TempRepo {
  // A fresh repo under /tmp with the given packages committed: names of
  // kernels/ folders in the source tree, or of tests/e2e/packages/ folders.
  explicit TempRepo(const std::vector<std::string>& packages);
  ~TempRepo();
  std::filesystem::path dir;
  std::string git(const std::vector<std::string>& args) const;   // stdout, trimmed; throws on failure
  void commit_all(const std::string& message) const;
};

ar::ProcessResult run_cli(const TempRepo& repo, const std::vector<std::string>& args, int timeout_s = 900);
// The same with more environment (an API key for the fake endpoint).
ar::ProcessResult run_cli_env(const TempRepo& repo, const std::vector<std::string>& args,
                              const std::map<std::string, std::string>& env, int timeout_s = 900);
// Every file under `dir` whose bytes contain `needle` (a secret that must be nowhere on disk).
std::vector<std::filesystem::path> files_containing(const std::filesystem::path& dir, const std::string& needle);

// Runs the binary in the background; signal() sends a signal; wait() reaps it.
class Background {
 public:
  Background(const TempRepo& repo, const std::vector<std::string>& args);
  ~Background();
  void signal(int sig);
  int wait(int timeout_s);   // exit code, 128+signal if killed by one, -1 on timeout
 private:
  int pid_ = -1;
};

std::vector<nlohmann::json> read_log(const std::filesystem::path& file);
std::vector<nlohmann::json> of_type(const std::vector<nlohmann::json>& lines, const std::string& type);
std::filesystem::path only_run_dir(const TempRepo& repo);
bool wait_until(const std::function<bool()>& cond, int timeout_s);

}  // namespace e2e
