#pragma once
// Where things live. The "home" holds what the tool ships (the harness sources,
// include/, context/, configs/); the "repo" is the user's git checkout holding
// kernels/ and the state folder .autoresearch/ (runs, worktrees, caches), which
// is kept out of git through .git/info/exclude.
#include <filesystem>
#include <string>
#include <vector>

namespace ar {

struct Paths {
  std::filesystem::path home;
  std::filesystem::path repo;
  // Device locks are machine-wide (two checkouts share one GPU):
  // AUTORESEARCH_LOCK_DIR, else <tmp>/autoresearch-locks.
  std::filesystem::path locks = default_lock_dir();
  static std::filesystem::path default_lock_dir();
  // The lock a run or a bench holds while it measures on `device` ("gpu0", "cpu").
  std::filesystem::path device_lock(const std::string& device) const { return locks / (device + ".lock"); }
  std::filesystem::path state() const { return repo / ".autoresearch"; }
  std::filesystem::path runs() const { return state() / "runs"; }
  std::filesystem::path run_dir(const std::string& run_id) const { return runs() / run_id; }
  std::filesystem::path cache_file() const { return state() / "cache" / "results.jsonl"; }
  // Harness builds are shared by every checkout on the machine (they are keyed
  // by the hash of everything they are built from): AUTORESEARCH_CACHE_DIR, else
  // $XDG_CACHE_HOME/autoresearch, else ~/.cache/autoresearch.
  std::filesystem::path harness_cache() const;
};

// The shipped files: AUTORESEARCH_HOME (refused unless it holds them), else
// ../share/autoresearch beside the running executable (an installed binary),
// else the source tree the binary was built from (a build folder). Throws a
// usage error naming the three places when none holds them.
std::filesystem::path find_home();
// The git top level at or above `start`; throws a usage error outside a checkout.
std::filesystem::path find_repo(const std::filesystem::path& start);
Paths discover_paths(const std::filesystem::path& start);

// "sparse_mla" -> <repo>/kernels/sparse_mla/manifest.json (then <home>/kernels/...);
// a folder or a manifest path is taken as given. Unknown: usage error listing the known kernels.
std::filesystem::path resolve_manifest(const Paths& p, const std::string& kernel);
std::vector<std::string> known_kernels(const Paths& p);

// Adds "/.autoresearch/" to .git/info/exclude once, so runs never dirty the checkout.
void exclude_state_dir(const Paths& p);

// A run id safe for a branch and a folder name: <kernel>-<tag>.
std::string make_run_id(const std::string& kernel, const std::string& tag);
bool valid_tag(const std::string& tag);

}  // namespace ar
