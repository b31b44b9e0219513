#pragma once
// The "llm" agent (SPEC §5): a model over HTTP reads the context pack and
// answers with one idea and SEARCH/REPLACE edit blocks (context/rules.md shows
// the format). Edits are applied in memory to the current best source; a block
// that does not apply goes back to the model with the reason and the nearest
// lines, a bounded number of times. What the model cannot get right, and what
// the endpoint cannot answer, becomes a failure of the proposal with its own
// kind (Output, Unavailable, Fatal), so the loop logs it and goes on or stops.
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "autoresearch/agents/agent.h"
#include "autoresearch/agents/edit_blocks.h"

namespace ar {

class LlmClient;

struct LlmAgentSettings {
  int edit_retries = 2;              // times failing edits are sent back
  size_t max_answer_bytes = 400000;
  std::string package_prefix;        // repo-relative package folder: edits may use repo paths
};

class LlmAgent : public Agent {
 public:
  LlmAgent(std::unique_ptr<LlmClient> client, LlmAgentSettings s, const std::atomic<bool>* cancel);
  ~LlmAgent() override;
  std::string name() const override { return "llm"; }
  std::vector<Proposal> propose(const AgentContext& ctx, int max_count) override;
  bool wants_context_pack() const override { return true; }

 private:
  std::unique_ptr<LlmClient> client_;
  LlmAgentSettings s_;
  const std::atomic<bool>* cancel_;
};

// What the model is asked to be and to answer (the system prompt).
std::string llm_system_prompt();
// The IDEA: line of an answer (markdown decorations stripped); empty when none.
std::string answer_idea(const std::string& answer);

}  // namespace ar
