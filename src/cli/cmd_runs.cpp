// `autoresearch runs`: the runs of this repository, one line each (--json for
// machines). A run is "running" while its lock is held.
#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "autoresearch/core/paths.h"
#include "autoresearch/log/run_list.h"
#include "autoresearch/ui/printer.h"
#include "commands.h"

namespace ar {

CommandAction add_runs_command(CLI::App& sub) {
  auto json = std::make_shared<bool>(false);
  sub.add_flag("--json", *json, "print the runs as a JSON array on stdout");
  sub.footer(
      "States: running (its lock is held), finished (a goal, budget or plateau ended it), interrupted\n"
      "(Ctrl-C, or killed: resumable with `autoresearch run --resume RUN`), failed (infrastructure).\n"
      "\"best vs start\" is the latest interleaved measurement of the run's best against its start.\n"
      "Exit codes: 0; 2 outside a git checkout.");
  return [json] {
    Paths p = discover_paths(std::filesystem::current_path());
    std::vector<RunSummary> runs = list_runs(p.runs());
    if (*json) {
      nlohmann::json out = nlohmann::json::array();
      for (const RunSummary& r : runs) out.push_back(to_json(r));
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    if (runs.empty()) {
      fmt::print(stderr, "no runs yet under {} (start one with `autoresearch run --kernel K`)\n", p.runs().string());
      return 0;
    }
    std::cout << render_run_list(runs, output_width(stdout));
    return 0;
  };
}

}  // namespace ar
