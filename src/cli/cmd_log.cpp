// `autoresearch log [RUN]`: the experiments of a run as a table or JSON;
// --follow appends new lines until the run's final line.
#include <unistd.h>

#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "autoresearch/core/paths.h"
#include "autoresearch/log/experiment_log.h"
#include "autoresearch/log/log_view.h"
#include "autoresearch/ui/printer.h"
#include "autoresearch/util/file_lock.h"
#include "autoresearch/util/errors.h"
#include "commands.h"
#include "run_admin.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

struct LogArgs {
  std::string run;
  bool json = false;
  bool follow = false;
};

}  // namespace

CommandAction add_log_command(CLI::App& sub) {
  auto a = std::make_shared<LogArgs>();
  sub.add_option("run", a->run, "run id (default: the latest run), a run folder, or an experiments.jsonl file");
  sub.add_flag("--json", a->json, "print {\"header\":...,\"experiments\":[...]} on stdout");
  sub.add_flag("--follow,-f", a->follow, "keep printing new experiments until the run ends (Ctrl-C to stop)");
  return [a] {
    Paths p;
    p.home = find_home();
    fs::path file;
    if (names_log_outside_repo(a->run)) {
      file = run_log_file(p, a->run);
    } else {
      p.repo = find_repo(fs::current_path());
      file = run_log_file(p, a->run.empty() ? latest_run(p) : a->run);
    }
    bool colour = isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR");
    const size_t width = output_width(stdout);
    if (!a->follow) {
      auto c = read_log(file);
      if (a->json) std::cout << render_log_json(c).dump(2) << "\n";
      else std::cout << render_log_table(c, colour, width);
      return 0;
    }
    // Follow: JSON lines (--json) or the table's new rows, appended: never a reprint.
    size_t shown = 0;
    LogFollower table(colour, width);
    while (true) {
      auto c = read_log(file);
      if (a->json) {
        if (shown == 0) std::cout << c.header.dump() << "\n";
        for (size_t i = shown; i < c.lines.size(); ++i) std::cout << c.lines[i].dump() << "\n";
        shown = c.lines.size();
      } else {
        std::cout << table.update(c);
      }
      std::cout.flush();
      // A final line ends the run unless a resume follows it; a run whose lock
      // nobody holds will write nothing more (it was killed).
      if (!c.lines.empty() && c.lines.back().value("type", "") == "final") return 0;
      std::string holder;
      if (!FileLock::is_held(file.parent_path() / "lock", &holder)) {
        fmt::print(stderr, "the run is not running and has no final line (killed, or it crashed); "
                           "`autoresearch run --resume {}` continues it\n",
                   c.header.value("run_id", "RUN"));
        return 0;
      }
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  };
}

}  // namespace ar
