#pragma once
// `autoresearch report`: one run's experiment log read into the facts a reader
// wants the morning after (start -> best, per workload, decisions, where the
// wall time went, tokens and cost, the commands that reproduce the best). The
// renderers (report_text.cpp, report_html.cpp) only lay these facts out; every
// number is computed here, once, from the log alone.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autoresearch/log/bench_table.h"
#include "autoresearch/log/experiment_log.h"
#include "autoresearch/log/run_list.h"

namespace ar {

struct ReportWorkload {
  std::string name;
  std::optional<double> start_us, best_us;        // medians
  std::optional<double> ratio;                    // start / best (> 1: the best is faster)
  std::optional<std::array<double, 2>> ratio_ci;  // 95%, where start and best were measured interleaved
  std::optional<double> flops, bytes;             // per call, from the manifest's formulas
  std::optional<RooflinePosition> start_at, best_at;
};

// One candidate on the way: what the run believed the best to be after it.
struct ReportStep {
  int id = 0;
  std::optional<double> seconds;     // since the run started (its finished time)
  std::string decision;
  std::optional<double> estimate;    // its own measured speedup vs the start (vs its incumbent x the incumbent's)
  double best = 1;                   // the best vs the start after it
  bool keep = false;
};

// The fastest verified candidate on one workload (what a per-workload dispatch
// would pick). Speedups are chained estimates: each candidate's own interleaved
// ratio against its incumbent on that workload, times the incumbent's.
struct ReportWinner {
  std::string workload;
  int candidate = 0;                 // 0: no verified candidate beat the start here
  std::string idea;
  std::optional<double> us;          // the winner's median on this workload, as measured
  std::optional<double> speedup;     // the winner vs the start on this workload
  std::optional<double> best;        // the run's best vs the start on this workload, same chain
  std::string measured;              // "full" or "screen": which measurement gave the figure
  int rivals = 0;                    // verified candidates measured on this workload (0: none was)
};

struct ReportCount {
  std::string name;
  int count = 0;
};

struct ReportPhase {
  std::string name;                  // "agent", "build", "verify", "screen", "measure", ...
  double seconds = 0;
};

struct Report {
  std::string run_id, kernel, package, branch, base_commit, started, agent, device, host;
  double goal = 0;
  RunResult result;                  // current_result(): the one number `log` and `runs` print
  bool finished = false;             // a final line ends the log
  bool running = false;              // its lock is held now (mark_running)
  bool goal_reached = false;
  std::string stop_reason;

  Roofline roofline;                 // the header's peaks
  std::string workloads_measured;    // how start and best in the table were measured
  std::vector<ReportWorkload> workloads;

  int keeps = 0;
  std::vector<ReportCount> decisions;   // every kind seen, in the Decision enum's order
  std::vector<ReportStep> steps;        // every candidate line, in log order

  double wall_seconds = 0;              // the sessions' wall time (final lines), else first to last line
  std::vector<ReportPhase> phases;      // where it went (see report_model.cpp for the fields read)
  std::string phases_note;              // what the breakdown is made of, and what it cannot see
  std::vector<std::string> phases_missing;   // of agent, build, verify, screen, measure, confirm,
                                             // sanitizer: those no line recorded a time for
  std::vector<ReportWinner> winners;    // per workload, in the baseline's order; empty: no per-workload results

  long long tokens_in = 0, tokens_out = 0;
  double cost_usd = 0;
  bool cost_estimated = false;          // some call was priced at the table's highest rates

  std::string best_commit;              // "" when nothing was kept
  int best_candidate = 0;
  std::vector<std::string> reproduce;   // shell commands, in order
  std::vector<std::string> notes;       // a torn last line, a run still going, ...
};

// Never throws on odd lines: a field missing, null or of another type is left out.
Report build_report(const LogContents& log);
// The run's lock is held by `holder` now: a log without a final line is a run
// still going, not one that was killed. (The log alone cannot tell them apart.)
void mark_running(Report& r, const std::string& holder);

// The renderers. Text is the terminal's default; Markdown and CSV for pasting;
// JSON for machines; HTML one self-contained page with inline SVG plots.
std::string render_report_text(const Report& r, size_t width);
std::string render_report_markdown(const Report& r);
std::string render_report_csv(const Report& r);
nlohmann::json render_report_json(const Report& r);
std::string render_report_html(const Report& r);

// Display names of a phase and of a decision kind, shared by every renderer.
std::string phase_label(const std::string& phase);

}  // namespace ar
