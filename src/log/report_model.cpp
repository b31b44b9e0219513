// The report's facts, read from the log's own lines (README "The experiment
// log"). Which line gives what:
//   header           run, kernel, branch, base commit, agent, device, roofline peaks, goal
//   baseline         the start's per-workload medians, FLOPs and bytes
//   candidate        decisions, keeps (vs_baseline, commit), tokens, cost, the time fields below
//   final            the result (via current_result()), the start and best per workload
//                    measured interleaved at the end (`workloads`), the best commit, wall time
#include "autoresearch/log/report_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <set>

#include <fmt/format.h>

#include "autoresearch/core/decision.h"
#include "json_fields.h"
#include "report_winners.h"

namespace ar {

using detail::field;
using detail::interval;
using detail::number;
using detail::text;
using nlohmann::json;

namespace {

constexpr const char* kNoFinalLine = "the log has no final line: the run is still going, or was killed";

// "2026-11-30T16:04:12Z" (the clock's format, fractions allowed) -> seconds since the epoch, UTC.
std::optional<double> epoch_seconds(const std::string& iso) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0;
  double s = 0;
  if (std::sscanf(iso.c_str(), "%d-%d-%dT%d:%d:%lf", &y, &mo, &d, &h, &mi, &s) != 6) return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  return static_cast<double>(timegm(&tm)) + s;
}

std::optional<double> positive(std::optional<double> v) {
  if (v && *v > 0 && std::isfinite(*v)) return v;
  return std::nullopt;
}

struct Work {
  std::optional<double> flops, bytes, start_us;
};

// A bench table's rows ({name, median_us, flops, bytes}) by workload name.
void read_rows(const json* rows, std::map<std::string, Work>& out, bool take_median) {
  if (!rows || !rows->is_array()) return;
  for (const json& w : *rows) {
    std::string name = text(w, {"name"});
    if (name.empty()) continue;
    Work& work = out[name];
    if (!work.flops) work.flops = number(w, {"flops"});
    if (!work.bytes) work.bytes = number(w, {"bytes"});
    if (take_median && !work.start_us) {
      work.start_us = positive(number(w, {"median_us"}));
      if (!work.start_us) work.start_us = positive(number(w, {"time_us", "median"}));
    }
  }
}

void place(ReportWorkload& w, const Roofline& roof) {
  if (w.start_us && w.best_us) w.ratio = *w.start_us / *w.best_us;
  if (!w.flops && !w.bytes) return;
  if (w.start_us) w.start_at = roofline_position(*w.start_us, w.flops.value_or(0), w.bytes.value_or(0), roof);
  if (w.best_us) w.best_at = roofline_position(*w.best_us, w.flops.value_or(0), w.bytes.value_or(0), roof);
}

// Start and best per workload. Best evidence first: the last `final` line's
// interleaved measurement of the best against the start, when no keep came
// after it; else the start as the baseline measured it and the best as its
// keep's full measurement measured it (two separate comparisons, so no CI).
void read_workloads(const LogContents& log, Report& r) {
  std::map<std::string, Work> work;
  const json* final_rows = nullptr;
  const json* best_keep = nullptr;
  for (const json& line : log.lines) {
    std::string type = text(line, {"type"});
    if (type == "baseline") {
      read_rows(field(line, {"bench", "workloads"}), work, true);
    } else if (type == "candidate") {
      read_rows(field(line, {"bench", "workloads"}), work, false);
      if (text(line, {"decision"}) == "keep") {
        best_keep = &line;
        final_rows = nullptr;
      }
    } else if (type == "final") {
      const json* rows = field(line, {"workloads"});
      auto keeps = number(line, {"keeps"});
      if (rows && rows->is_array() && !rows->empty() && (!keeps || *keeps > 0)) final_rows = rows;
    }
  }

  if (final_rows) {
    r.workloads_measured = "start and best re-measured interleaved at the end of the run";
    for (const json& row : *final_rows) {
      ReportWorkload w;
      w.name = text(row, {"workload"});
      w.start_us = positive(number(row, {"incumbent", "median"}));
      w.best_us = positive(number(row, {"candidate", "median"}));
      auto lo = number(row, {"ci_low"}), hi = number(row, {"ci_high"});
      if (lo && hi) w.ratio_ci = std::array<double, 2>{*lo, *hi};
      auto it = work.find(w.name);
      if (it != work.end()) {
        w.flops = it->second.flops;
        w.bytes = it->second.bytes;
      }
      place(w, r.roofline);
      if (auto ratio = number(row, {"ratio"})) w.ratio = ratio;   // the paired estimate, not the ratio of medians
      r.workloads.push_back(std::move(w));
    }
    return;
  }

  const json* keep_rows = best_keep ? field(*best_keep, {"bench", "workloads"}) : nullptr;
  if (keep_rows && keep_rows->is_array()) {
    r.workloads_measured =
        "the start as the baseline measured it, the best as its keep measured it (separate measurements: no CI)";
    for (const json& row : *keep_rows) {
      ReportWorkload w;
      w.name = text(row, {"name"});
      w.best_us = positive(number(row, {"median_us"}));
      auto it = work.find(w.name);
      if (it != work.end()) {
        w.start_us = it->second.start_us;
        w.flops = it->second.flops;
        w.bytes = it->second.bytes;
      }
      place(w, r.roofline);
      r.workloads.push_back(std::move(w));
    }
    return;
  }

  // Nothing kept (or no keep line with a measurement): the start is the best.
  r.workloads_measured = r.keeps == 0 ? "nothing kept: the start is the best" : "no per-workload measurement logged";
  const json* rows = nullptr;
  for (const json& line : log.lines)
    if (text(line, {"type"}) == "baseline") rows = field(line, {"bench", "workloads"});
  if (!rows || !rows->is_array()) return;
  for (const json& row : *rows) {
    ReportWorkload w;
    w.name = text(row, {"name"});
    const Work& known = work[w.name];
    w.start_us = known.start_us;
    if (r.keeps == 0) w.best_us = w.start_us;
    w.flops = known.flops;
    w.bytes = known.bytes;
    place(w, r.roofline);
    r.workloads.push_back(std::move(w));
  }
}

// Decisions in the enum's order (core/decision.h), spellings it does not know after them.
std::vector<ReportCount> ordered_counts(const std::map<std::string, int>& counts) {
  std::vector<ReportCount> out;
  std::map<std::string, int> rest = counts;
  for (int i = 0; i <= static_cast<int>(Decision::Error); ++i) {
    std::string name = decision_name(static_cast<Decision>(i));
    auto it = rest.find(name);
    if (it == rest.end()) continue;
    out.push_back({name, it->second});
    rest.erase(it);
  }
  for (const auto& [name, n] : rest) out.push_back({name, n});
  return out;
}

// The canonical order of phases; names a future log adds come after them.
const char* const kPhaseOrder[] = {"agent",     "build",      "build_wait", "guard", "verify", "tune_each",
                                   "screen",    "measure",    "confirm",    "sanitizer", "git", "aa",
                                   "start",     "unattributed"};

double phase_seconds(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (auto s = number(v, {"seconds"})) return *s;
  return 0;
}

// One candidate's time by phase. An explicit `phases` object ({name: seconds},
// the per-phase breakdown of issue 11) is taken as it is. Lines without one
// give what they carry: the agent's calls (`calls[].seconds`, else
// `agent_detail.seconds`), `build.seconds`, the compiled-code scan
// (`build.scan_seconds`), `verify.seconds`, the GPU time of the screen, the
// full measurement and the confirming re-run (`screen|bench|confirm.gpu_seconds`)
// and `sanitizer.seconds` where logged. What they do not carry (git, the
// tune-each sweep's builds, the sanitizer on older lines, the driver itself)
// stays in the run's unattributed rest.
void add_candidate_phases(const json& c, std::map<std::string, double>& out, std::set<std::string>& seen) {
  const json* phases = field(c, {"phases"});
  if (phases && phases->is_object()) {
    for (const auto& [name, v] : phases->items()) {
      out[name] += phase_seconds(v);
      seen.insert(name);
    }
    return;
  }
  auto add = [&](const char* phase, std::optional<double> s) {
    if (!s) return;
    out[phase] += *s;
    seen.insert(phase);
  };
  std::optional<double> agent;
  if (const json* calls = field(c, {"calls"}); calls && calls->is_array())
    for (const json& call : *calls)
      if (auto s = number(call, {"seconds"})) agent = agent.value_or(0) + *s;
  if (!agent) agent = number(c, {"agent_detail", "seconds"});
  add("agent", agent);
  add("build", number(c, {"build", "seconds"}));
  add("guard", number(c, {"build", "scan_seconds"}));
  add("verify", number(c, {"verify", "seconds"}));
  add("screen", number(c, {"screen", "gpu_seconds"}));
  add("measure", number(c, {"bench", "gpu_seconds"}));
  add("confirm", number(c, {"confirm", "gpu_seconds"}));
  add("sanitizer", number(c, {"sanitizer", "seconds"}));
}

void read_time(const LogContents& log, Report& r) {
  std::map<std::string, double> phases;
  std::map<std::string, double> final_phases;
  std::set<std::string> seen;
  double session_seconds = 0;
  bool have_sessions = false, explicit_phases = false;
  std::optional<double> first = epoch_seconds(text(log.header, {"started"})), last;
  for (const json& line : log.lines) {
    std::string type = text(line, {"type"});
    if (auto t = epoch_seconds(text(line, {"time"}))) last = t;
    if (auto t = epoch_seconds(text(line, {"finished"}))) last = t;
    if (type == "candidate") {
      explicit_phases = explicit_phases || field(line, {"phases"});
      add_candidate_phases(line, phases, seen);
    } else if (type == "aa") {
      phases["aa"] += number(line, {"gpu_seconds"}).value_or(0);
    } else if (type == "verify_baseline") {
      phases["start"] += number(line, {"verify", "seconds"}).value_or(0);
    } else if (type == "final") {
      if (auto s = number(line, {"session", "seconds"})) {
        session_seconds += *s;
        have_sessions = true;
      }
      // A final line's own breakdown covers its whole session (A/A refreshes,
      // the re-measure at the end): it replaces the sum over that session.
      if (const json* p = field(line, {"phases"}); p && p->is_object())
        for (const auto& [name, v] : p->items()) {
          final_phases[name] += phase_seconds(v);
          seen.insert(name);
        }
    }
  }
  if (have_sessions) r.wall_seconds = session_seconds;
  else if (first && last && *last > *first) r.wall_seconds = *last - *first;

  if (!final_phases.empty()) {
    phases = final_phases;
    r.phases_note = "from the final lines' per-phase breakdown";
  } else if (explicit_phases) {
    r.phases_note = "from the candidates' per-phase breakdown, plus the A/A noise measurements";
  } else {
    r.phases_note =
        "from the candidates' build, verify, screen, measure and confirm times and their agents' calls; builds made "
        "ahead on spare cores overlap other phases, and git, the tune-each sweeps and the driver are in the rest";
  }
  double attributed = 0;
  for (const auto& [name, s] : phases) attributed += s;
  if (r.wall_seconds > attributed) phases["unattributed"] += r.wall_seconds - attributed;
  // Builds made ahead on spare cores run while another candidate is measured.
  if (r.wall_seconds > 0 && attributed > r.wall_seconds * 1.01)
    r.phases_note += fmt::format("; the phases add up to {:.0f}% of the wall time because some ran at once",
                                 attributed / r.wall_seconds * 100);
  for (const char* name : {"agent", "build", "verify", "screen", "measure", "confirm", "sanitizer"})
    if (!seen.count(name)) r.phases_missing.push_back(name);

  for (const char* name : kPhaseOrder) {
    auto it = phases.find(name);
    if (it == phases.end()) continue;
    if (it->second > 0) r.phases.push_back({name, it->second});
    phases.erase(it);
  }
  for (const auto& [name, s] : phases)
    if (s > 0) r.phases.push_back({name, s});
}

// The candidates in order, with the best as the run knew it after each.
void read_steps(const LogContents& log, Report& r, const std::optional<double>& started) {
  double best = 1;
  std::map<std::string, int> counts;
  for (const json& line : log.lines) {
    if (text(line, {"type"}) != "candidate") continue;
    ReportStep s;
    s.id = static_cast<int>(number(line, {"id"}).value_or(0));
    s.decision = text(line, {"decision"});
    if (s.decision.empty()) s.decision = "error";
    ++counts[s.decision];
    std::string when = text(line, {"finished"});
    if (auto t = epoch_seconds(when.empty() ? text(line, {"started"}) : when); t && started) s.seconds = *t - *started;
    auto vs_incumbent = positive(number(line, {"speedup"}));
    if (!vs_incumbent) vs_incumbent = positive(number(line, {"screen", "speedup"}));
    if (vs_incumbent) s.estimate = *vs_incumbent * best;
    s.keep = s.decision == "keep";
    if (s.keep) {
      ++r.keeps;
      if (auto vb = positive(number(line, {"vs_baseline"}))) best = *vb;
      else if (s.estimate) best = *s.estimate;
      r.best_candidate = s.id;
      r.best_commit = text(line, {"commit"});
    }
    s.best = best;
    r.steps.push_back(s);
    r.tokens_in += static_cast<long long>(number(line, {"tokens", "in"}).value_or(0));
    r.tokens_out += static_cast<long long>(number(line, {"tokens", "out"}).value_or(0));
    r.cost_usd += number(line, {"cost_usd"}).value_or(0);
    if (const json* calls = field(line, {"calls"}); calls && calls->is_array())
      for (const json& call : *calls)
        if (const json* e = field(call, {"cost_estimated"}); e && e->is_boolean() && e->get<bool>())
          r.cost_estimated = true;
  }
  r.decisions = ordered_counts(counts);
}

std::string short_commit(const std::string& sha) { return sha.substr(0, 12); }

void read_reproduce(Report& r) {
  const std::string kernel = r.kernel.empty() ? "KERNEL" : r.kernel;
  if (r.best_commit.empty()) {
    if (!r.base_commit.empty()) {
      r.reproduce.push_back(fmt::format("git worktree add ../{}-start {}", r.run_id, short_commit(r.base_commit)));
      r.reproduce.push_back(fmt::format("cd ../{}-start && autoresearch bench --kernel {}", r.run_id, kernel));
    }
    return;
  }
  // A worktree leaves the user's checkout as it is; bench there rebuilds exactly
  // what was measured (the commit carries the tunables file).
  r.reproduce.push_back(fmt::format("git worktree add ../{}-best {}", r.run_id, short_commit(r.best_commit)));
  r.reproduce.push_back(fmt::format("cd ../{}-best && autoresearch bench --kernel {}", r.run_id, kernel));
  r.reproduce.push_back(fmt::format("autoresearch adopt {}    # the best onto your branch, as one commit", r.run_id));
}

std::string agent_text(const json& header) {
  const json* a = field(header, {"agent"});
  if (!a) return "";
  if (a->is_string()) return a->get<std::string>();
  std::string name = text(*a, {"name"});
  std::string model = text(*a, {"model"});
  std::string command = text(*a, {"command"});
  if (!model.empty()) return name + " (" + model + ")";
  if (!command.empty()) return name + " (" + command + ")";
  return name;
}

}  // namespace

std::string phase_label(const std::string& phase) {
  static const std::map<std::string, std::string> labels = {
      {"agent", "agent (proposing)"},
      {"build", "build"},
      {"build_wait", "waiting for a build"},
      {"guard", "guard (scans)"},
      {"verify", "verify"},
      {"tune_each", "tune-each sweep"},
      {"screen", "screen (quick)"},
      {"measure", "measure (full)"},
      {"confirm", "confirm (re-run)"},
      {"sanitizer", "sanitizer"},
      {"git", "git"},
      {"aa", "A/A noise"},
      {"aa_refresh", "A/A noise"},
      {"start", "verifying the start"},
      {"unattributed", "the rest (driver, git, setup)"},
  };
  auto it = labels.find(phase);
  return it == labels.end() ? phase : it->second;
}

Report build_report(const LogContents& log) {
  Report r;
  const json& h = log.header;
  r.run_id = text(h, {"run_id"});
  r.kernel = text(h, {"kernel"});
  r.package = text(h, {"package"});
  r.branch = text(h, {"branch"});
  r.base_commit = text(h, {"base_commit"});
  r.started = text(h, {"started"});
  r.agent = agent_text(h);
  r.device = text(h, {"device", "name"});
  r.host = text(h, {"host", "cpu"});
  r.goal = number(h, {"goal"}).value_or(0);
  r.roofline.peak_flops = number(h, {"roofline", "peak_flops"}).value_or(0);
  r.roofline.peak_bytes_per_s = number(h, {"roofline", "peak_bytes_per_s"}).value_or(0);
  r.roofline.source = text(h, {"roofline", "source"});
  r.result = current_result(log);

  read_steps(log, r, epoch_seconds(r.started));
  for (const json& line : log.lines) {
    std::string type = text(line, {"type"});
    if (type == "final") {
      r.finished = true;
      r.stop_reason = text(line, {"stop_reason"});
      const json* reached = field(line, {"goal_reached"});
      r.goal_reached = reached && reached->is_boolean() && reached->get<bool>();
      std::string commit = text(line, {"best_commit"});
      if (!commit.empty() && r.keeps > 0) r.best_commit = commit;
      if (auto id = number(line, {"best_candidate"}); id && r.keeps > 0) r.best_candidate = static_cast<int>(*id);
    } else if (type == "resume") {
      r.finished = false;   // resumed after its final line: the old ending no longer holds
    }
  }
  read_workloads(log, r);
  read_time(log, r);
  read_reproduce(r);
  r.winners = detail::per_workload_winners(log);
  if (log.torn_tail) r.notes.push_back("the log's last line was torn by a crash and is left out");
  if (!r.finished) r.notes.push_back(kNoFinalLine);
  return r;
}

void mark_running(Report& r, const std::string& holder) {
  r.running = true;
  r.notes.erase(std::remove(r.notes.begin(), r.notes.end(), kNoFinalLine), r.notes.end());
  r.notes.push_back("the run is still going (" + holder + "): this is how it stands now");
}

}  // namespace ar
