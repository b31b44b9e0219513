#include "autoresearch/cli/cli.h"

#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "autoresearch/core/paths.h"
#include "autoresearch/util/errors.h"
#include "autoresearch/version.h"
#include "commands.h"
#include "environment_errors.h"

namespace ar {

namespace {

const CommandSpec kCommands[] = {
    {"run", "the loop: propose, guard, build, verify, benchmark, keep or revert, until the goal or a budget",
     add_run_command},
    {"bench", "build, verify and benchmark the current source once; print the per-workload table",
     add_bench_command},
    {"verify", "build the current source and check it on every workload (correctness only)", add_verify_command},
    {"calibrate",
     "measure the keep rule on this machine: false keeps of the kernel against itself, or its power on a "
     "planted speedup",
     add_calibrate_command},
    {"log", "the experiments of a run, one line each (--json for machines, --follow to tail)", add_log_command},
    {"report", "a run's summary: start -> best, per workload, decisions, time, cost, how to reproduce (--format html)",
     add_report_command},
    {"runs", "the runs of this repository: state, best vs the start, candidates, keeps, branch", add_runs_command},
    {"dispatch", "the run's best and the candidates that beat it on some workloads in one cubin, picked per shape; "
                 "verified, measured against the best, committed only if faster",
     add_dispatch_command},
    {"adopt", "bring a run's best into your current branch, as one commit or as a patch file", add_adopt_command},
    {"clean", "remove a finished run's worktree (and, with --branch, its branch)", add_clean_command},
    {"doctor", "what is present (GPU, driver, compilers, git, sanitizer, LLM keys) and how to fix what is not",
     add_doctor_command},
    {"context", "print the context pack a text agent receives (rules, hardware, model, ideas, history, source)",
     add_context_command},
    {"init", "scaffold a new kernel package (kernels/NAME) from a template: --backend cuda|cpu",
     add_init_command},
    {"profile", "the kernel's hardware-counter profile (ncu, --clock-control none), as text agents get it",
     add_profile_command},
    {"space", "measure every feasible configuration of a package's tunables on its quick workloads (a space file)",
     add_space_command},
    {"simulate", "replay a measured space with the tuner's strategies: evaluations to near the best, vs random",
     add_simulate_command},
};

}  // namespace

int cli_main(int argc, char** argv) {
  CLI::App app{"autoresearch: an overnight loop that makes CUDA kernels faster, and refuses what it cannot verify"};
  app.require_subcommand(1);
  // The version, the commit it was built from, and which shipped files
  // (harness sources, context, templates) this binary uses.
  app.set_version_flag("--version", [] {
    std::string home;
    try {
      home = find_home().string();
    } catch (const Fatal& e) {
      home = std::string("not found: ") + e.what();
    }
    return std::string("autoresearch " AUTORESEARCH_VERSION " (commit " AUTORESEARCH_GIT_COMMIT ")\nhome: ") + home;
  });
  std::map<std::string, CommandAction> actions;
  for (const auto& c : kCommands) {
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    actions[c.name] = c.add(*sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  for (const auto& [name, action] : actions) {
    if (!app.got_subcommand(name)) continue;
    try {
      return action();
    } catch (const Fatal& e) {
      std::fflush(stdout);
      fmt::print(stderr, "autoresearch {}: {}\n", name, explain_fatal(e.what()));
      return e.code();
    } catch (const std::filesystem::filesystem_error& e) {
      // The disk, not the program: a read-only or full state folder.
      std::fflush(stdout);
      fmt::print(stderr, "autoresearch {}: {}\n", name, explain_filesystem_error(e));
      return kExitInfrastructure;
    } catch (const std::exception& e) {
      std::fflush(stdout);
      fmt::print(stderr, "autoresearch {}: internal error: {}\n", name, e.what());
      return kExitInternal;
    }
  }
  return kExitUsage;
}

}  // namespace ar
