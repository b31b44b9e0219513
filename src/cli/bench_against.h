#pragma once
// `bench --against REF`: the current source timed against another version of
// its package (a git revision of this repository, or a folder), interleaved in
// one measurement, both verified first. The question it answers is the one a
// kernel engineer asks before a commit or a night's run: is my edit faster
// than what I had, on which workloads, and by more than this measurement's
// noise?
#include <filesystem>
#include <string>
#include <vector>

#include "autoresearch/core/manifest.h"
#include "autoresearch/core/paths.h"
#include "autoresearch/util/errors.h"
#include "autoresearch/vcs/git.h"
#include "one_shot.h"

namespace ar {

struct AgainstVersion {
  std::string label;            // as the user named it: "HEAD~1", a branch, a folder
  std::string commit;           // the resolved commit; empty for a folder
  std::filesystem::path dir;    // the package folder (a revision's is exported under the state folder)
  Manifest manifest;
  Tunables tunables;            // its own tunables file (--set applies to the current source only)
  // Package files that differ from the current package's, editable ones and the tunables file aside: both
  // versions are judged by the current package's harness and workloads, so these are said, not refused.
  std::vector<std::string> differs;
};

// REF as a folder when one exists at that path, else as a revision of the repository holding the
// current package (exported from git, untracked and ignored files left out). Usage errors for a
// revision that does not exist, a package outside the repository, a revision without the package, or
// another backend.
AgainstVersion load_against(Git& git, const Paths& paths, const Manifest& current, const std::string& ref);

struct BenchAgainstArgs {
  std::string ref;
  std::string workloads = "timed";
  bool json = false;
};

// Guards, builds and verifies REF's version beside the current one (loaded into slot "b" by
// prepare_one_shot), times them interleaved, and prints the table with the ratio per workload and the
// geomean with its 95% CI. Exit codes as `bench`'s.
ExitCode run_bench_against(World& world, OneShot& o, const RunConfig& cfg, const BenchAgainstArgs& args,
                           unsigned long long seed);

// The one-line reading of a comparison against REF: faster, slower, or no significant difference, with
// the geomean, its CI and p; then the first workload significantly slower by more than `margin`.
std::string against_summary(const Comparison& c, const std::string& ref, double margin);

}  // namespace ar
