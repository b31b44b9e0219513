#pragma once
// The experiment log of SPEC §7: JSON lines, append-only, one file per run
// (<run dir>/experiments.jsonl). Line 1 is a versioned header; then one line per
// event ("baseline", "aa", "candidate", "resume", "final"). Every line is flushed
// and fsync'ed before the loop goes on, so a crash loses at most the candidate
// in flight, and a resume can rebuild the run's state from the file alone.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ar {

inline constexpr int kLogVersion = 1;
inline constexpr const char* kLogFileName = "experiments.jsonl";

class ExperimentLog {
 public:
  // Creates the file with the header; throws Fatal(kExitUsage) if it exists.
  static ExperimentLog create(const std::filesystem::path& file, nlohmann::json header);
  // Opens an existing log for appending (resume); validates the header version.
  static ExperimentLog open_for_append(const std::filesystem::path& file);

  // Adds "type" and "time" if absent is the caller's job; this writes the line durably.
  void append(const nlohmann::json& line);
  const std::filesystem::path& file() const { return file_; }

 private:
  explicit ExperimentLog(std::filesystem::path f) : file_(std::move(f)) {}
  std::filesystem::path file_;
};

struct LogContents {
  nlohmann::json header;
  std::vector<nlohmann::json> lines;   // everything after the header, in order
  bool torn_tail = false;              // the last line was incomplete (crash mid-write) and was skipped
};

// Reads a log; throws Fatal(kExitUsage) naming the file and line on a bad header
// or a corrupt line that is not the last.
LogContents read_log(const std::filesystem::path& file);

}  // namespace ar
