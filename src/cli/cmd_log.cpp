// `autoresearch log [RUN]`: the experiments of a run as a table or JSON;
// --follow keeps printing new lines until the run's final line.
#include <unistd.h>

#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "autoresearch/core/paths.h"
#include "autoresearch/log/experiment_log.h"
#include "autoresearch/log/log_view.h"
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

bool has_final(const LogContents& c) {
  for (const auto& l : c.lines)
    if (l.value("type", "") == "final") return true;
  return false;
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
    if (!a->follow) {
      auto c = read_log(file);
      if (a->json) std::cout << render_log_json(c).dump(2) << "\n";
      else std::cout << render_log_table(c, colour);
      return 0;
    }
    // Follow: reprint as JSON lines (--json) or redraw the table's new rows.
    size_t shown = 0;
    while (true) {
      auto c = read_log(file);
      if (a->json) {
        if (shown == 0) std::cout << c.header.dump() << "\n";
        for (size_t i = shown; i < c.lines.size(); ++i) std::cout << c.lines[i].dump() << "\n";
      } else if (c.lines.size() != shown) {
        std::cout << render_log_table(c, colour) << std::flush;
      }
      shown = c.lines.size();
      std::cout.flush();
      if (has_final(c)) return 0;
      std::this_thread::sleep_for(std::chrono::seconds(2));
    }
  };
}

}  // namespace ar
