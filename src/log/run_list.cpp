#include "autoresearch/log/run_list.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "autoresearch/util/file_lock.h"
#include "json_fields.h"
#include "text_columns.h"

namespace fs = std::filesystem;

namespace ar {

using detail::field;
using detail::interval;
using detail::number;
using detail::text;
using nlohmann::json;

namespace {

std::string id_text(const json& line) {
  auto id = number(line, {"id"});
  return id ? fmt::format("#{}", static_cast<long long>(*id)) : "#?";
}

// The state a `final` line records. Lines written before "outcome" existed
// only have the stop reason.
RunState state_of_final(const json& f) {
  std::string outcome = text(f, {"outcome"});
  if (outcome == "failed") return RunState::Failed;
  if (outcome == "interrupted") return RunState::Interrupted;
  if (!outcome.empty()) return RunState::Finished;
  std::string why = text(f, {"stop_reason"});
  if (why.find("infrastructure") != std::string::npos) return RunState::Failed;
  if (why.find("interrupted") != std::string::npos) return RunState::Interrupted;
  return RunState::Finished;
}

// "2026-11-30T15:24:20Z" -> "11-30 15:24" (UTC; the JSON has the full stamp).
std::string short_time(const std::string& iso) {
  if (iso.size() >= 16 && iso[10] == 'T') return iso.substr(5, 5) + " " + iso.substr(11, 5);
  return iso.empty() ? "-" : iso;
}

}  // namespace

RunResult current_result(const LogContents& log) {
  RunResult r;
  for (const json& line : log.lines) {
    std::string type = text(line, {"type"});
    if (type == "candidate" && text(line, {"decision"}) == "keep") {
      if (auto vb = number(line, {"vs_baseline"})) {
        r.speedup = vb;
        r.ci = interval(line, {"vs_baseline_ci"});
        r.measured = "at keep " + id_text(line);
      }
    } else if (type == "final") {
      auto x = number(line, {"speedup_vs_baseline"});
      auto keeps = number(line, {"keeps"});
      if (keeps && *keeps == 0) {
        r = RunResult{1.0, std::nullopt, "nothing kept"};
        continue;
      }
      const json* remeasured = field(line, {"remeasured"});
      if (x && remeasured && remeasured->is_boolean() && remeasured->get<bool>()) {
        r.speedup = x;
        r.ci = interval(line, {"ci"});
        r.measured = "re-measured at the end";
      } else if (x) {
        // Not re-measured (interrupted, or the measurement failed): the final
        // line carries the last measurement, which a resume may have renewed.
        if (!r.speedup || std::abs(*r.speedup - *x) > 1e-12) r.measured = "as last measured";
        r.speedup = x;
        if (auto ci = interval(line, {"ci"})) r.ci = ci;
      }
    }
  }
  return r;
}

const char* run_state_name(RunState s) {
  switch (s) {
    case RunState::Running: return "running";
    case RunState::Finished: return "finished";
    case RunState::Interrupted: return "interrupted";
    case RunState::Failed: return "failed";
    case RunState::Unreadable: return "unreadable";
  }
  return "unreadable";
}

RunSummary summarize_run(const fs::path& run_dir) {
  RunSummary s;
  s.id = run_dir.filename().string();
  s.dir = run_dir;
  std::error_code ec;
  s.has_worktree = fs::exists(run_dir / "worktree" / ".git", ec);
  LogContents log;
  try {
    log = read_log(run_dir / kLogFileName);
  } catch (const std::exception& e) {
    s.state = RunState::Unreadable;
    s.detail = e.what();
    return s;
  }
  const json& h = log.header;
  s.kernel = text(h, {"kernel"});
  s.branch = text(h, {"branch"});
  s.base_commit = text(h, {"base_commit"});
  s.package = text(h, {"package"});
  s.started = text(h, {"started"});

  const json* last_end = nullptr;   // the last final, unless a resume came after it
  for (const json& line : log.lines) {
    std::string type = text(line, {"type"});
    if (type == "candidate") {
      if (auto id = number(line, {"id"})) s.candidates = std::max(s.candidates, static_cast<int>(*id));
      if (text(line, {"decision"}) == "keep") ++s.keeps;
    } else if (type == "final") {
      last_end = &line;
    } else if (type == "resume") {
      last_end = nullptr;
    }
  }
  s.result = current_result(log);

  std::string holder;
  if (FileLock::is_held(run_dir / "lock", &holder)) {
    s.state = RunState::Running;
    s.detail = holder;
  } else if (last_end) {
    s.state = state_of_final(*last_end);
    s.detail = text(*last_end, {"stop_reason"});
    const json* reached = field(*last_end, {"goal_reached"});
    s.goal_reached = reached && reached->is_boolean() && reached->get<bool>();
  } else {
    s.state = RunState::Interrupted;
    s.detail = "no final line: the process was killed or crashed";
  }
  return s;
}

std::vector<RunSummary> list_runs(const fs::path& runs_dir) {
  std::vector<RunSummary> out;
  std::error_code ec;
  if (!fs::is_directory(runs_dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(runs_dir, ec)) {
    if (!fs::exists(e.path() / kLogFileName, ec)) continue;  // a run that never started
    out.push_back(summarize_run(e.path()));
  }
  std::sort(out.begin(), out.end(), [](const RunSummary& a, const RunSummary& b) {
    return a.started != b.started ? a.started < b.started : a.id < b.id;
  });
  return out;
}

std::string render_run_list(const std::vector<RunSummary>& runs, size_t width) {
  using detail::Align;
  if (runs.empty()) return "";
  struct Row {
    std::string id, kernel, state, best, candidates, keeps, started, branch;
  };
  std::vector<Row> rows = {{"run", "kernel", "state", "best vs start", "tried", "kept", "started", "branch"}};
  for (const RunSummary& r : runs) {
    Row row;
    row.id = r.id;
    row.kernel = r.kernel.empty() ? "-" : r.kernel;
    row.state = run_state_name(r.state);
    row.best = r.result.speedup ? fmt::format("{:.3f}x", *r.result.speedup) : "-";
    if (r.goal_reached) row.best += " (goal)";
    row.candidates = std::to_string(r.candidates);
    row.keeps = std::to_string(r.keeps);
    row.started = short_time(r.started);
    row.branch = r.branch.empty() ? "-" : r.branch;
    rows.push_back(row);
  }
  auto widest = [&](std::string Row::*cell) {
    size_t w = 0;
    for (const Row& r : rows) w = std::max(w, detail::display_width(r.*cell));
    return w;
  };
  const size_t w_id = widest(&Row::id), w_kernel = widest(&Row::kernel), w_state = widest(&Row::state),
               w_best = widest(&Row::best), w_cand = widest(&Row::candidates), w_keeps = widest(&Row::keeps),
               w_started = widest(&Row::started);
  size_t fixed = w_id + w_kernel + w_state + w_best + w_cand + w_keeps + w_started + 2 * 7;
  size_t w_branch_need = widest(&Row::branch);
  // On a narrow screen the kernel goes first (the run id starts with it), then
  // the branch is cut (it is autoresearch/<run id> unless renamed).
  const bool show_kernel = fixed + w_branch_need <= width;
  if (!show_kernel) fixed -= w_kernel + 2;
  // Under a dozen columns left, the branch goes too.
  const size_t w_branch = width >= fixed + 12 ? width - fixed : 0;
  std::string out;
  for (const Row& r : rows) {
    std::string line = detail::pad(r.id, w_id, Align::Left) + "  " +
                       (show_kernel ? detail::pad(r.kernel, w_kernel, Align::Left) + "  " : std::string()) +
                       detail::pad(r.state, w_state, Align::Left) + "  " +
                       detail::pad(r.best, w_best, Align::Right) + "  " +
                       detail::pad(r.candidates, w_cand, Align::Right) + "  " +
                       detail::pad(r.keeps, w_keeps, Align::Right) + "  " +
                       detail::pad(r.started, w_started, Align::Left) +
                       (w_branch ? "  " + detail::truncate_to_width(r.branch, w_branch) : std::string());
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

json to_json(const RunSummary& r) {
  json j = {{"id", r.id},
            {"kernel", r.kernel},
            {"state", run_state_name(r.state)},
            {"detail", r.detail},
            {"best_vs_start", r.result.speedup ? json(*r.result.speedup) : json()},
            {"best_ci", r.result.ci ? json(*r.result.ci) : json()},
            {"best_measured", r.result.measured},
            {"goal_reached", r.goal_reached},
            {"candidates", r.candidates},
            {"keeps", r.keeps},
            {"started", r.started},
            {"branch", r.branch},
            {"base_commit", r.base_commit},
            {"package", r.package},
            {"worktree", r.has_worktree},
            {"dir", r.dir.string()}};
  return j;
}

}  // namespace ar
