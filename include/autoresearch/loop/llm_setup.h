#pragma once
// The run's options as the LLM client's settings: one mapping, used by the
// llm agent and by `doctor` (which probes the endpoint the run would use).
#include "autoresearch/core/config.h"
#include "autoresearch/llm/llm_client.h"

namespace ar {

// Throws a usage error naming the option that is wrong.
LlmSettings llm_settings_from(const RunConfig& c);

}  // namespace ar
