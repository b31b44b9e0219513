// The LLM agent, reached as the run's options say; the key only from the
// environment. A paid endpoint always has a finite cost budget.
#include <fmt/format.h>

#include "autoresearch/agents/command_agent.h"
#include "autoresearch/agents/llm_agent.h"
#include "autoresearch/llm/llm_client.h"
#include "autoresearch/loop/llm_setup.h"
#include "autoresearch/llm/prices.h"
#include "autoresearch/util/errors.h"
#include "steps.h"

namespace ar {

namespace {

// With no --max-cost, a paid endpoint may spend this much in one run.
constexpr double kDefaultPaidBudgetUsd = 10.0;

}  // namespace

LlmSettings llm_settings_from(const RunConfig& c) {
  LlmSettings s;
  auto provider = parse_llm_provider(c.llm_provider);
  if (!provider) throw usage_error(fmt::format("--llm-provider: '{}' (expected openai or anthropic)", c.llm_provider));
  s.provider = *provider;
  s.base_url = c.llm_base_url;
  s.model = c.llm_model;
  if (c.llm_temperature >= 0) s.temperature = c.llm_temperature;
  s.max_output_tokens = c.llm_max_output_tokens;
  auto field = parse_max_tokens_field(c.llm_max_tokens_field);
  if (!field)
    throw usage_error(fmt::format("--llm-max-tokens-field: '{}' (expected auto, max_tokens or max_completion_tokens)",
                                  c.llm_max_tokens_field));
  s.max_tokens_field = *field;
  s.stream = c.llm_stream;
  if (c.llm_paid == "true") s.paid = true;
  else if (c.llm_paid == "false") s.paid = false;
  else if (c.llm_paid != "auto") throw usage_error(fmt::format("--llm-paid: '{}' (expected auto, true or false)", c.llm_paid));
  s.connect_timeout_s = c.llm_connect_timeout_s;
  s.total_timeout_s = c.llm_timeout_s;
  s.max_attempts = c.llm_attempts;
  if (auto why = validate_llm_settings(s); !why.empty()) throw usage_error(why);
  return s;
}

void check_agent_can_start(RunContext& ctx) {
  const RunConfig& c = ctx.cfg;
  if (c.agent == "command" && c.agent_sandbox) {
    std::string why = sandbox_unavailable_reason(*ctx.world.runner);
    if (!why.empty()) throw usage_error("--agent-sandbox: " + why);
  }
  if (c.agent == "llm") {
    LlmSettings s = llm_settings_from(c);
    ApiKey key = resolve_api_key(s.provider);
    if (auto why = missing_key_problem(s, key); !why.empty()) throw usage_error(why);
  }
}

void resolve_budgets(RunContext& ctx) {
  const RunConfig& c = ctx.cfg;
  if (c.max_cost >= 0) {
    ctx.max_cost_usd = c.max_cost;
  } else if (c.agent == "llm" && endpoint_bills(llm_settings_from(c))) {
    ctx.max_cost_usd = kDefaultPaidBudgetUsd;
  } else {
    ctx.max_cost_usd = 0;
  }
}

std::unique_ptr<Agent> make_llm_agent(RunContext& ctx) {
  LlmSettings s = llm_settings_from(ctx.cfg);
  ApiKey key = resolve_api_key(s.provider);
  if (auto why = missing_key_problem(s, key); !why.empty()) throw usage_error(why);
  auto prices = std::make_shared<const PriceTable>(PriceTable::load(ctx.paths.home / "configs" / "prices.json"));
  LlmAgentSettings a;
  a.edit_retries = ctx.cfg.llm_edit_retries;
  a.max_answer_bytes = static_cast<size_t>(ctx.cfg.llm_max_answer_bytes);
  a.package_prefix = ctx.package_prefix;
  if (ctx.max_cost_usd > 0)
    ctx.out().event(fmt::format("LLM: {}; cost budget ${:.2f} (--max-cost)", describe_endpoint(s, key), ctx.max_cost_usd));
  else
    ctx.out().event(fmt::format("LLM: {}", describe_endpoint(s, key)));
  return std::make_unique<LlmAgent>(make_llm_client(s, std::move(key), prices), a, ctx.world.stop);
}

}  // namespace ar
