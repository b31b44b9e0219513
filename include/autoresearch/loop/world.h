#pragma once
// The seams between the loop and the world: every process, git call, clock
// read, harness and printed line goes through here, so the loop's tests run
// against fakes in milliseconds.
#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "autoresearch/build/builder.h"
#include "autoresearch/core/config.h"
#include "autoresearch/measure/harness.h"
#include "autoresearch/measure/slurm_harness.h"
#include "autoresearch/ui/printer.h"
#include "autoresearch/util/clock.h"
#include "autoresearch/util/subprocess.h"
#include "autoresearch/vcs/git.h"

namespace ar {

struct World {
  ProcessRunner* runner = nullptr;   // compilers, sanitizer, nvidia-smi
  Clock* clock = nullptr;
  Printer* printer = nullptr;
  const std::atomic<bool>* stop = nullptr;   // set by SIGINT/SIGTERM
  std::function<std::unique_ptr<Git>(const std::filesystem::path& dir)> open_git;
  std::function<std::unique_ptr<Harness>(const std::filesystem::path& exe, int gpu)> open_harness;
  // --executor slurm: the harness as one SLURM job per measurement step.
  std::function<std::unique_ptr<Harness>(const std::filesystem::path& exe, const SlurmSettings&)> open_slurm_harness;
  std::function<std::optional<Toolchain>(Backend, std::string* why)> find_toolchain;
  std::function<std::filesystem::path(const Manifest&, const Paths&, const Toolchain&)> build_harness;
  // Host facts for the log header.
  std::function<nlohmann::json()> host_info;
};

// The executor options (--executor, --slurm-*): a usage error for bad ones.
void validate_executor(const RunConfig& cfg);
// What --slurm-* say, for a package of `backend` (only CUDA jobs ask for a GPU).
SlurmSettings slurm_settings_for(const RunConfig& cfg, Backend backend);
// The run's harness where --executor says: here (open_harness) or under SLURM.
std::unique_ptr<Harness> open_run_harness(World& w, const RunConfig& cfg, Backend backend,
                                          const std::filesystem::path& exe);

// The real world: processes, git, the wall clock, a terminal printer.
World real_world(ProcessRunner& runner, Clock& clock, Printer& printer, const std::atomic<bool>* stop);

// SIGINT/SIGTERM set the returned flag (a second signal of either kind exits at
// once with 130 after killing nothing more: the first already began a clean stop).
const std::atomic<bool>* install_stop_signals();

}  // namespace ar
