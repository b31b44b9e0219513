#pragma once
// The "command" agent (SPEC §5): any program proposes by editing the sources
// in the run's worktree: a coding CLI, a script. It is given the context pack as
// a folder; the driver then judges whatever it left in the worktree, exactly as
// it judges the tuner's proposals.
//
// Contract with the program (README, "The command agent"):
//   - it runs as `/bin/sh -c CMD` in the worktree, `{context}` in CMD replaced by
//     the pack folder (also AUTORESEARCH_CONTEXT_DIR), under a timeout that kills
//     its whole process group; AUTORESEARCH_ITERATION, _PACKAGE_DIR, _KERNEL and
//     _WORKTREE say where it is;
//   - exit 0: it edited the editable files (a proposal); exit 3: it has nothing
//     more to propose (the run stops); 126/127: it cannot be run at all (the run
//     stops, exit 4); anything else: it failed (an infrastructure failure; N in
//     a row stop the run);
//   - it may write one sentence to <context>/idea.txt, or print a line `IDEA: ...`.
#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "autoresearch/agents/agent.h"

namespace ar {

class ProcessRunner;

struct CommandAgentSettings {
  std::string command;             // shell text; {context} is replaced
  double timeout_s = 1800;
  bool sandbox = false;            // bubblewrap: writes only the worktree, the pack and its own TMPDIR
  std::vector<std::string> sandbox_writable;
  std::string kernel;
};

// Exit status by which the command says it has nothing left to propose.
inline constexpr int kCommandAgentDone = 3;

class CommandAgent : public Agent {
 public:
  CommandAgent(CommandAgentSettings s, ProcessRunner& runner, const std::atomic<bool>* cancel);
  std::string name() const override { return "command"; }
  std::vector<Proposal> propose(const AgentContext& ctx, int max_count) override;
  bool wants_context_pack() const override { return true; }

 private:
  std::vector<std::string> argv(const AgentContext& ctx) const;
  CommandAgentSettings s_;
  ProcessRunner& runner_;
  const std::atomic<bool>* cancel_;
};

// `{context}` replaced by the shell-quoted path.
std::string expand_command(const std::string& command, const std::filesystem::path& context_dir);
// Single-quotes a string for /bin/sh.
std::string shell_quote(const std::string& s);

// The program's idea: the first line of idea.txt, else its last `IDEA:` line.
std::string command_idea(const std::filesystem::path& context_dir, const std::string& stdout_text);

// bubblewrap's argv prefix for a command that may write only `writable`, sees
// the rest of the file system read-only, and dies with the driver (its own pid
// namespace: nothing it starts outlives it).
std::vector<std::string> sandbox_argv(const std::vector<std::filesystem::path>& writable);

// Whether bubblewrap can run here: empty when it works, else why not (missing,
// or the kernel forbids the namespaces it needs).
std::string sandbox_unavailable_reason(ProcessRunner& runner);

}  // namespace ar
