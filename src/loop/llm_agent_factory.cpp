// TEMPORARY during development: replaced by the LLM agent before this lands.
#include "autoresearch/util/errors.h"
#include "steps.h"

namespace ar {

std::unique_ptr<Agent> make_llm_agent(RunContext&) { throw usage_error("--agent llm: not built yet"); }

void resolve_budgets(RunContext& ctx) {
  ctx.max_cost_usd = ctx.cfg.max_cost > 0 ? ctx.cfg.max_cost : 0;
}

}  // namespace ar
