#pragma once
// `autoresearch log`: one line per experiment as a table, or JSON for machines.
#include <cstdio>
#include <string>

#include "autoresearch/log/experiment_log.h"

namespace ar {

// Human table: id, finished time, decision, speedup (CI) vs incumbent, vs
// baseline, build/verify seconds, idea (tunables for the tuner), reason; above
// it the run's result (the same number as the final line: current_result()) and
// the history of the A/A noise. Fits `width` terminal columns.
std::string render_log_table(const LogContents& log, bool colour, size_t width = 100);
// Machine view: {"header":..., "experiments":[...]} (the log's own lines).
nlohmann::json render_log_json(const LogContents& log);

// `log --follow`: the summary and the table's head once, then only what is new
// (candidate rows, A/A refreshes, resumes, the final line), in columns fixed at
// the first call so that appended rows line up.
class LogFollower {
 public:
  LogFollower(bool colour, size_t width) : colour_(colour), width_(width) {}
  // What to print for the log as read now: everything the first time, then the
  // lines after those already shown. Empty when nothing is new.
  std::string update(const LogContents& log);

 private:
  bool colour_;
  size_t width_;
  size_t shown_ = 0;        // log lines already printed
  bool started_ = false;
  bool legend_shown_ = false;
};

}  // namespace ar
