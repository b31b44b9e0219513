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

namespace fs = std::filesystem;

namespace ar {

namespace {

struct LogArgs {
  std::string run;
  bool json = false;
  bool follow = false;
};

// The most recently modified run.
std::string latest_run(const Paths& p) {
  std::string best;
  fs::file_time_type when{};
  if (fs::is_directory(p.runs()))
    for (const auto& e : fs::directory_iterator(p.runs())) {
      auto f = e.path() / kLogFileName;
      if (!fs::exists(f)) continue;
      auto t = fs::last_write_time(f);
      if (best.empty() || t > when) {
        best = e.path().filename().string();
        when = t;
      }
    }
  if (best.empty()) throw usage_error("no runs yet under " + p.runs().string() + " (start one with `autoresearch run`)");
  return best;
}

fs::path log_file(const Paths& p, const std::string& run) {
  fs::path given(run);
  if (fs::is_regular_file(given)) return given;
  if (fs::is_regular_file(given / kLogFileName)) return given / kLogFileName;
  fs::path f = p.run_dir(run) / kLogFileName;
  if (!fs::exists(f)) throw usage_error(fmt::format("no run '{}' (looked for {})", run, f.string()));
  return f;
}

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
    if (!a->run.empty() && (fs::is_regular_file(a->run) || fs::is_regular_file(fs::path(a->run) / kLogFileName))) {
      file = log_file(p, a->run);
    } else {
      p.repo = find_repo(fs::current_path());
      file = log_file(p, a->run.empty() ? latest_run(p) : a->run);
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
