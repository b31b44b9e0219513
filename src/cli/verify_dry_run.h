#pragma once
// `autoresearch verify --dry-run`: what a device run would find wrong in the
// package, found without the device (build/problem_probe.h).
#include <string>
#include <vector>

#include "autoresearch/core/config.h"
#include "autoresearch/core/paths.h"
#include "autoresearch/loop/world.h"

namespace ar {

// Exit code: 0 nothing wrong, 2 the package is wrong (each finding printed
// "FILE: FIELD: ..."), 4 no compiler for its backend.
int verify_dry_run(World& world, const Paths& paths, const RunConfig& cfg, const std::vector<std::string>& sets,
                   bool json);

}  // namespace ar
