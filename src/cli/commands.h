#pragma once
// The subcommands, one file each, registered from one table in cli.cpp.
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace ar {

// Each command adds its subcommand and options, and returns the action to run
// when it is the one chosen. The action returns the process exit code.
using CommandAction = std::function<int()>;

struct CommandSpec {
  const char* name;
  const char* help;
  CommandAction (*add)(CLI::App& sub);
};

CommandAction add_run_command(CLI::App& sub);
CommandAction add_bench_command(CLI::App& sub);
CommandAction add_verify_command(CLI::App& sub);
CommandAction add_calibrate_command(CLI::App& sub);
CommandAction add_log_command(CLI::App& sub);
CommandAction add_report_command(CLI::App& sub);
CommandAction add_doctor_command(CLI::App& sub);
CommandAction add_context_command(CLI::App& sub);
CommandAction add_profile_command(CLI::App& sub);
CommandAction add_runs_command(CLI::App& sub);
CommandAction add_adopt_command(CLI::App& sub);
CommandAction add_clean_command(CLI::App& sub);
CommandAction add_init_command(CLI::App& sub);
CommandAction add_space_command(CLI::App& sub);
CommandAction add_simulate_command(CLI::App& sub);
CommandAction add_dispatch_command(CLI::App& sub);

}  // namespace ar
