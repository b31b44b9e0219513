#pragma once
// Results of every evaluated configuration, keyed by everything that could change
// them (SPEC §5): the editable sources' hash, the tunables, the compiler version
// and flags, the hashes of harness, oracle and workload set, the GPU and the
// driver. A configuration found here is never measured again. Stored as JSON
// lines (append-only, fsync'ed) under <repo>/.autoresearch/cache/.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autoresearch/agents/agent.h"

namespace ar {

// Everything except the tunables; the driver fills it once per source version.
struct CacheContext {
  std::string source_hash;
  std::string compiler;        // version string and flags
  std::string harness_hash;    // harness + oracle sources
  std::string workloads_hash;
  std::string device;          // GPU name + driver, or CPU model
  std::string key() const;     // sha256 over the fields
};

struct CachedResult {
  std::string context_key;
  Tunables tunables;
  Outcome outcome;
  std::map<std::string, double> median_us;   // per workload measured
  std::string run_id;
  int candidate_id = 0;
};

class ResultCache {
 public:
  // Loads the file if it exists (a torn last line is ignored); path may not exist yet.
  explicit ResultCache(std::filesystem::path file);
  // In-memory only (tests, --no-cache).
  ResultCache() = default;

  const CachedResult* find(const std::string& context_key, const Tunables& t) const;
  std::vector<const CachedResult*> all_for(const std::string& context_key) const;
  void add(const CachedResult& r);   // appends to the file when there is one
  size_t size() const { return entries_.size(); }

 private:
  std::filesystem::path file_;
  std::vector<CachedResult> entries_;
  std::map<std::string, size_t> index_;   // context_key + canonical tunables -> entry
  bool torn_tail_ = false;                // the file ends inside a line (a crash mid-append)
  bool dir_ready_ = false;                // parent folders created (on the first add)

  void remember(const CachedResult& r);
};

nlohmann::json to_json(const CachedResult& r);
CachedResult cached_result_from_json(const nlohmann::json& j);

}  // namespace ar
