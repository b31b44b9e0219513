#pragma once
// The agent proposes; the driver judges. Every agent (the built-in tuner, an
// external command, an LLM) implements this one interface, and every proposal
// is one value (a Proposal) that flows from the agent to the commit: the full
// tunables to build with, and, for text agents, the new source.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autoresearch/core/decision.h"

namespace ar {

struct Manifest;
struct ContextPack;

using Tunables = std::map<std::string, long long>;

// One request an agent made to produce a proposal: a model call (tokens, cost)
// or one run of an agent command.
struct AgentCall {
  long long tokens_in = 0, tokens_out = 0;
  double cost_usd = 0;
  bool cost_estimated = false;   // the model's price was not in the table
  double seconds = 0;
  int attempts = 1;              // HTTP attempts, retries included
  std::string finish;            // "stop", "length", ...; a command's exit description
  std::string model;
};

// Why an agent has no usable proposal this time.
struct AgentFailure {
  enum class Kind {
    Output,       // its answer or edit was unusable: logged as agent_error, the run goes on
    Unavailable,  // the endpoint or command is down: an infrastructure failure (N in a row stop the run)
    Fatal,        // nothing will work until a human acts (bad key, no quota): the run stops, exit 4
  };
  Kind kind = Kind::Output;
  std::string message;           // what happened and, where it helps, what to fix
};

struct Proposal {
  std::string agent;                 // "tune", "command", "llm"
  std::string model;                 // LLM model or strategy name ("evolution", "random")
  std::string idea;                  // one sentence
  Tunables tunables;                 // the full assignment to build with
  // New full contents of editable files, package-relative (the LLM agent).
  std::map<std::string, std::string> files;
  // True when the agent already edited files in the worktree itself (command agent).
  bool edited_worktree = false;
  // The incumbent the proposal was made against (its candidate id, 0 = the start)
  // and that incumbent's tunables: a proposal judged against a newer incumbent is
  // rebased first, so the idea and the diff describe the change actually measured.
  int base_id = 0;
  Tunables base_tunables;
  std::optional<AgentFailure> failure;
  std::vector<AgentCall> calls;
  nlohmann::json detail = nlohmann::json::object();   // agent-specific, for the log (never secrets)

  bool changes_source() const { return edited_worktree || !files.empty(); }
  long long tokens_in() const;
  long long tokens_out() const;
  double cost_usd() const;
};

// What became of a proposal, fed back to the agent.
struct Outcome {
  Decision decision = Decision::Error;
  std::string reason;
  // Geometric-mean time (µs) over the quick workloads; the tuner's fitness. Absent
  // when the candidate never got measured.
  std::optional<double> quick_geomean_us;
  std::optional<double> speedup;     // vs the incumbent, when measured
};

// A past experiment, as agents see it (no hidden-workload details, ever).
struct ExperimentSummary {
  int id = 0;
  std::string agent;
  std::string idea;
  Tunables tunables;
  Outcome outcome;
  std::string diff_summary;          // "kernel.cu +12 -3"; empty for tunables-only changes
};

struct AgentContext {
  const Manifest* manifest = nullptr;
  Tunables incumbent_tunables;
  int incumbent_id = 0;                         // candidate id of the incumbent (0: the start)
  std::string incumbent_source_hash;            // hash of the editable sources (not the tunables)
  // The incumbent's fitness (geometric-mean µs over the quick workloads), from
  // its side of the latest screen; absent before the first one.
  std::optional<double> incumbent_quick_geomean_us;
  std::vector<ExperimentSummary> history;       // oldest first, most recent last
  std::filesystem::path worktree;               // the run's worktree (the command agent runs here)
  std::filesystem::path package_dir;            // the package inside the run's worktree
  std::filesystem::path context_dir;            // where the context pack is written for text agents
  const ContextPack* pack = nullptr;            // text agents: what they are told
  int iteration = 0;                            // the id the next proposal will get
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
  // Text agents are handed the context pack; the driver assembles it only for them.
  virtual bool wants_context_pack() const { return false; }
  // A proposal made against an older incumbent, moved onto the current one;
  // nullopt drops it (the default: a stale text edit is not guessed at).
  virtual std::optional<Proposal> rebase(const Proposal& stale, const AgentContext& now) { return std::nullopt; }
  // How many configurations the agent has left to try (nullopt: unknown or
  // unbounded, as for text agents): the plateau rule shrinks with it.
  virtual std::optional<long long> untried() { return std::nullopt; }
};

}  // namespace ar
