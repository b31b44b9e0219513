#pragma once
// What `bench` and `verify` share: the package, its harness, and the current
// source (the checkout as it is, edits included) built once.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autoresearch/build/builder.h"
#include "autoresearch/core/config.h"
#include "autoresearch/core/manifest.h"
#include "autoresearch/core/paths.h"
#include "autoresearch/log/bench_table.h"
#include "autoresearch/loop/source_check.h"
#include "autoresearch/loop/world.h"
#include "autoresearch/measure/harness.h"
#include "autoresearch/util/file_lock.h"
#include "real_world.h"

namespace ar {

struct OneShot {
  Paths paths;
  Manifest manifest;
  Tunables tunables;
  std::optional<Toolchain> toolchain;
  std::unique_ptr<Builder> builder;
  std::filesystem::path harness_exe;
  std::unique_ptr<Harness> harness;
  std::unique_ptr<HarnessSession> session;
  std::unique_ptr<FileLock> device_lock;
  BuildResult build;
  Roofline roofline;
  SourceCheck guard;            // when asked for; a finding stops before anything is built
  bool scope_checked = false;   // false when the package is outside this repository
  std::string guard_summary() const;
};

// Loads the package, applies --set NAME=VALUE overrides, runs the guard a
// run's candidates face (with `guard`; on a finding it returns at once, with
// o.guard saying what), builds the harness and the kernel, starts the harness
// and loads the kernel into slot "a" (and "b"). A kernel that does not build
// is a usage error (exit 2) with the compiler's message.
OneShot prepare_one_shot(World& world, const RunConfig& cfg, const std::vector<std::string>& sets, bool guard);

// The compiled-code scan a run's candidates face (timers, device-side launches, the device heap, imports),
// on what a build made: its binary when it built, its PTX either way. The finding, or nullopt when it passes
// or there is nothing to scan.
std::optional<std::string> compiled_code_finding(const BuildResult& b, Backend backend);

// The tunables file with --set NAME=VALUE overrides; usage errors for an
// unknown name, a value the manifest does not allow, a broken constraint.
Tunables apply_sets(const Manifest& m, Tunables t, const std::vector<std::string>& sets);

// "quick", "timed", "all" or a comma-separated list of workload names.
std::vector<Workload> select_workloads(const Manifest& m, const std::string& which);

}  // namespace ar
