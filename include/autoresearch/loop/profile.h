#pragma once
// A hardware-counter profile of a kernel (Nsight Compute), for the context pack
// and `autoresearch profile`. ncu runs the protected harness as its child with
// --clock-control none (the card's clocks are never touched), and the harness
// verifies the kernel once on a small timed workload; the first launch of each
// stage is profiled. The result is text a human or an agent reads: achieved
// occupancy, DRAM, SM and tensor-pipe utilisation, the top stall reasons.
#include <atomic>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "autoresearch/core/manifest.h"

namespace ar {

class ProcessRunner;

struct ProfileRequest {
  const Manifest* manifest = nullptr;
  std::filesystem::path harness_exe;
  std::filesystem::path artifact;
  std::filesystem::path work_dir;       // ncu's log goes here
  std::string workload;                 // empty: the smallest timed workload (the agents' default)
  int gpu = 0;
  double timeout_s = 300;
  const std::atomic<bool>* cancel = nullptr;
};

struct Profile {
  std::string workload;
  nlohmann::json kernels = nlohmann::json::array();   // per profiled kernel: name, metrics, stalls
  std::string text;                                   // the readable summary
};

// nullopt + *why when ncu is missing, the backend is not CUDA, or ncu failed.
std::optional<Profile> profile_kernel(ProcessRunner& runner, const ProfileRequest& rq, std::string* why);

// The smallest timed workload by FLOPs (the profiled one).
const Workload* profile_workload(const Manifest& m);

// Parses `ncu --csv --page raw` output into per-kernel metric maps (exposed for tests).
nlohmann::json parse_ncu_raw_csv(const std::string& csv);
// The harness's "occupancy" from its protocol output (the reply to "launch"; PROTOCOL.md), null if none.
nlohmann::json launch_occupancy_of(const std::string& harness_stdout);
// The readable summary of parsed kernels; with the harness's occupancy, each stage also says how many of
// its blocks the device holds at once and in how many waves it runs (a stage in clusters may need more).
std::string describe_profile(const nlohmann::json& kernels, const std::string& workload,
                             const nlohmann::json& occupancy = nullptr);

}  // namespace ar
