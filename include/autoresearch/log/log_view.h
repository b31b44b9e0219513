#pragma once
// `autoresearch log`: one line per experiment as a table, or JSON for machines.
#include <cstdio>
#include <string>

#include "autoresearch/log/experiment_log.h"

namespace ar {

// Human table: id, finished time, decision, speedup (CI) vs incumbent, vs
// baseline, build/verify seconds, idea (tunables for the tuner), reason.
std::string render_log_table(const LogContents& log, bool colour);
// Machine view: {"header":..., "experiments":[...]} (the log's own lines).
nlohmann::json render_log_json(const LogContents& log);

}  // namespace ar
