#pragma once
// The agent proposes; the driver judges. Every agent (the built-in tuner, an
// external command, an LLM) implements this one interface.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ar {

struct Manifest;

using Tunables = std::map<std::string, long long>;

struct Proposal {
  std::string agent;                 // "tune", "command", "llm"
  std::string model;                 // LLM model or strategy name ("evolution", "random")
  std::string idea;                  // one sentence
  Tunables tunables;                 // the full assignment to build with
  // Whole-file replacements, package-relative (text agents). Empty for the tuner.
  std::map<std::string, std::string> files;
  // True when the agent already edited files in the worktree itself (command agent).
  bool edited_worktree = false;
  long long tokens_in = 0, tokens_out = 0;
  double cost_usd = 0;
};

// What became of a proposal, fed back to the agent.
struct Outcome {
  std::string decision;              // keep, discard, build_error, wrong, timeout, crash, rejected_by_guard
  std::string reason;
  // Geometric-mean time (µs) over the quick workloads; the tuner's fitness. Absent
  // when the candidate never got measured.
  std::optional<double> quick_geomean_us;
  std::optional<double> speedup;     // vs the incumbent, when fully measured
};

// A past experiment, as agents see it (no hidden-workload details, ever).
struct ExperimentSummary {
  int id = 0;
  std::string idea;
  Tunables tunables;
  Outcome outcome;
};

struct AgentContext {
  const Manifest* manifest = nullptr;
  Tunables incumbent_tunables;
  std::string incumbent_source_hash;            // hash of the editable sources (not the tunables)
  // The incumbent's fitness (geometric-mean µs over the quick workloads), from
  // its side of the latest screen; absent before the first one.
  std::optional<double> incumbent_quick_geomean_us;
  std::vector<ExperimentSummary> history;       // oldest first, most recent last
  std::filesystem::path package_dir;            // the package inside the run's worktree
  int iteration = 0;
};

class Agent {
 public:
  virtual ~Agent() = default;
  virtual std::string name() const = 0;
  // Up to max_count proposals (>1 lets the driver compile ahead while the GPU
  // measures). Empty: the agent has nothing left to try.
  virtual std::vector<Proposal> propose(const AgentContext& ctx, int max_count) = 0;
  virtual void observe(const Proposal& proposal, const Outcome& outcome) {}
  // True when proposals only change tunables, so several can be built at once
  // from one source tree.
  virtual bool proposes_tunables_only() const { return false; }
};

}  // namespace ar
