#pragma once
// The progress of `autoresearch space` (OUT.partial, JSON lines): one line per
// configuration group judged, appended and fsync'ed as it is measured, so an
// interrupted or failed measurement continues where it stopped when the same
// command is run again, and a configuration is never measured twice.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autoresearch/agents/agent.h"
#include "autoresearch/core/decision.h"

namespace ar {

// What is known of one configuration.
struct SpaceEntry {
  std::optional<Decision> failure;    // build_error, wrong, ...: no time
  std::string reason;
  std::string build;                  // the artifact's hash (identical builds share a measurement)
  std::vector<double> ratio;          // per workload: reference / configuration (> 1: faster)
  std::vector<double> ci_low, ci_high;
  std::vector<double> reference_us;   // the reference's medians in the same measurement
  double gpu_seconds = 0;
};

class SpaceProgress {
 public:
  // Opens FILE, or starts it with `identity` (the space, the workloads, the
  // sampling) as its first line. A FILE made for another identity is refused:
  // its times would not be comparable.
  SpaceProgress(std::filesystem::path file, const nlohmann::json& identity);
  const SpaceEntry* find(const Tunables& t) const;
  size_t size() const { return entries_.size(); }
  // Records one result for every configuration of a group (one build).
  void add(const std::vector<Tunables>& group, const SpaceEntry& e);
  // Every reference median of every measurement, per workload.
  std::vector<std::vector<double>> reference_medians(size_t workloads) const;
  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
  std::map<std::string, SpaceEntry> entries_;   // canonical tunables -> entry
  std::vector<SpaceEntry> measured_;            // one per measured build
};

}  // namespace ar
