#pragma once
// `autoresearch run`: propose, guard, build, verify, benchmark, decide, keep or
// revert, log — until the goal, a budget, the plateau rule, or a signal.
#include <string>

#include "autoresearch/core/config.h"
#include "autoresearch/core/paths.h"
#include "autoresearch/loop/world.h"

namespace ar {

struct RunRequest {
  RunConfig config;
  Paths paths;
  std::string resume;              // run id to continue; empty for a new run
  nlohmann::json overrides = nlohmann::json::object();   // options given explicitly on a resume
  // --gpus as given ("0,1,3" or "all"); empty: --gpu alone. Not a RunConfig
  // option, so a single-GPU run's header is as it always was.
  std::string gpus;
};

// Returns the exit code of SPEC §2. Throws Fatal for usage and infrastructure errors.
int run_loop(World& world, RunRequest request);

}  // namespace ar
