#pragma once
// Builds the context pack from what the driver knows: the package, the shipped
// context files (rules, hardware, model), the human's ideas, the history, the
// compiler's feedback, the roofline position and the profile. Plain inputs, so
// `run` (mid-night) and `autoresearch context` (before any run) build it the
// same way.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autoresearch/agents/agent.h"
#include "autoresearch/agents/context_pack.h"
#include "autoresearch/core/manifest.h"

namespace ar {

struct PackInputs {
  const Manifest* manifest = nullptr;
  std::filesystem::path home;          // the shipped context/ lives here
  std::filesystem::path package_dir;   // the current best source is read from here
  std::string package_prefix;          // repo-relative package folder (edits may name it)
  std::string device_name;             // "NVIDIA H200", the CPU model; empty when unknown
  double goal = 2;
  double vs_baseline = 1;              // the best so far against the start
  int incumbent_id = 0;                // 0: the start
  int iteration = 0;                   // the id the proposal will get
  Tunables incumbent_tunables;
  std::vector<std::string> ideas;      // --idea and the ideas file, already split
  std::vector<ExperimentSummary> history;
  int history_limit = 12;
  nlohmann::json incumbent_build;      // {"registers","spills","seconds"} of the best's build; null when unknown
  std::string recent_build_errors;     // the last failed build's messages (tail), if any
  std::string recent_build_warnings;   // ptxas's performance warnings on the last built candidate ("#id: ..."), if any
  nlohmann::json incumbent_rows;       // bench rows of the best (bench_rows_json), null before a measurement
  std::string profile;                 // hardware-counter profile text; empty when none
};

ContextPack assemble_context_pack(const PackInputs& in);

// The hardware file for a device name (context/hardware/*.json "match"), or
// cpu.md for a CPU package; nullopt when none matches.
std::optional<std::filesystem::path> hardware_doc_for(const std::filesystem::path& home,
                                                      const std::string& device_name, Backend backend);

// Ideas from --idea values and an ideas file (paragraphs separated by blank lines).
std::vector<std::string> collect_ideas(const std::vector<std::string>& flags, const std::string& ideas_path);

// "kernel.cu +12 -3, tunables.json +1 -1" from a unified diff.
std::string summarize_diff(const std::string& diff);

}  // namespace ar
