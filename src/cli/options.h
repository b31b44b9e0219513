#pragma once
// RunConfig's fields as command-line flags, and the layering of SPEC §2:
// defaults < config file < environment < flags.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "autoresearch/core/config.h"
#include "autoresearch/core/paths.h"
#include "autoresearch/decide/keep_rule.h"

namespace ar {

struct ConfigFlags {
  RunConfig flags;                                   // what CLI11 writes into
  std::map<std::string, CLI::Option*> options;       // by field name
  std::string config_file;                           // --config
};

// Adds --<field-name> for every RunConfig field (all of them, or only `only`).
void add_config_flags(CLI::App& sub, ConfigFlags& f, const std::vector<std::string>& only = {});

// The effective config: defaults, then the config file (--config, else
// <repo>/configs/autoresearch.json when present), then AUTORESEARCH_* variables,
// then the flags given. *given receives the flags given, as JSON.
RunConfig layered_config(const ConfigFlags& f, const Paths& paths, nlohmann::json* given);

// The keep rule `run` applies, from the config's fields (calibrate, dispatch).
KeepRuleConfig keep_rule_from(const RunConfig& cfg);

}  // namespace ar
