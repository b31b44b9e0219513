// Per-workload winners from the candidate lines. A candidate's rows (its full
// measurement `bench.workloads`, else its quick `screen.workloads`) carry, per
// workload, the ratio of its incumbent's median to its own, measured
// interleaved. Chaining those ratios through the keeps gives each candidate's
// speedup vs the start on each workload without comparing medians taken
// minutes apart. Only candidates that verified and were judged on speed
// (keep, discard) compete: a candidate that failed, crashed or was refused
// is never a variant to dispatch to.
#include "report_winners.h"

#include <cmath>
#include <map>
#include <optional>

#include "json_fields.h"

namespace ar::detail {

using nlohmann::json;

namespace {

struct Rows {
  const json* rows = nullptr;
  std::string measured;
};

Rows measured_rows(const json& c) {
  for (const auto& [key, label] : {std::pair{"bench", "full"}, std::pair{"screen", "screen"}}) {
    const json* rows = field(c, {key, "workloads"});
    if (rows && rows->is_array() && !rows->empty()) return {rows, label};
  }
  return {};
}

// The candidate's speedup vs its incumbent on one row; nullopt when the row lacks it.
std::optional<double> row_ratio(const json& row) {
  auto ratio = number(row, {"ratio"});
  if (!ratio) {
    auto mine = number(row, {"median_us"}), theirs = number(row, {"other_median_us"});
    if (mine && theirs && *mine > 0) ratio = *theirs / *mine;
  }
  if (ratio && *ratio > 0 && std::isfinite(*ratio)) return ratio;
  return std::nullopt;
}

bool competes(const json& c) {
  const std::string d = text(c, {"decision"});
  if (d != "keep" && d != "discard") return false;
  const json* ok = field(c, {"verify", "ok"});
  return !(ok && ok->is_boolean() && !ok->get<bool>());
}

}  // namespace

std::vector<ReportWinner> per_workload_winners(const LogContents& log) {
  std::vector<std::string> order;
  std::map<std::string, std::optional<double>> incumbent;   // vs the start, on each workload
  std::map<std::string, ReportWinner> holder;               // the incumbent itself, on each workload
  auto know = [&](const std::string& name) {
    if (name.empty() || incumbent.count(name)) return;
    order.push_back(name);
    incumbent[name] = 1.0;
    holder[name] = ReportWinner{name, 0, "", std::nullopt, 1.0, std::nullopt, ""};
  };
  for (const json& line : log.lines)
    if (text(line, {"type"}) == "baseline")
      if (const json* rows = field(line, {"bench", "workloads"}); rows && rows->is_array())
        for (const json& row : *rows) {
          know(text(row, {"name"}));
          holder[text(row, {"name"})].us = number(row, {"median_us"});
        }

  std::map<std::string, ReportWinner> fastest;
  std::map<std::string, int> rivals;
  bool any = false;
  for (const json& line : log.lines) {
    if (text(line, {"type"}) != "candidate" || !competes(line)) continue;
    const Rows m = measured_rows(line);
    if (!m.rows) continue;
    const bool keep = text(line, {"decision"}) == "keep";
    std::map<std::string, ReportWinner> next;   // the incumbent after a keep
    for (const json& row : *m.rows) {
      const std::string name = text(row, {"name"});
      know(name);
      auto ratio = row_ratio(row);
      const std::optional<double> base = incumbent[name];
      if (!ratio) continue;
      ++rivals[name];
      if (!base) continue;
      any = true;
      ReportWinner w{name, static_cast<int>(number(line, {"id"}).value_or(0)), text(line, {"idea"}),
                     number(row, {"median_us"}), *ratio * *base, std::nullopt, m.measured};
      next[name] = w;
      ReportWinner& f = fastest[name];
      if (!f.speedup || *f.speedup < *w.speedup) f = w;
    }
    // A keep the log measured on only some workloads leaves the others unknown:
    // a later ratio against it cannot be chained back to the start there.
    if (keep)
      for (auto& [name, value] : incumbent) {
        auto it = next.find(name);
        value = it == next.end() ? std::nullopt : it->second.speedup;
        holder[name] = it == next.end() ? ReportWinner{name, 0, "", std::nullopt, std::nullopt, std::nullopt, ""}
                                        : it->second;
      }
  }
  if (!any) return {};

  // Another candidate wins a workload only by more than the keep rule's
  // minimum gain: a screen's 0.1% is noise, not a reason to dispatch.
  const double margin = 1 + number(log.header, {"keep_rule", "min_gain"}).value_or(0.01);
  std::vector<ReportWinner> out;
  for (const std::string& name : order) {
    const std::optional<double> best = incumbent[name];
    ReportWinner w = holder[name];
    auto f = fastest.find(name);
    if (f != fastest.end() && (!best || *f->second.speedup > *best * margin)) w = f->second;
    w.workload = name;
    w.best = best;
    w.rivals = rivals[name];
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace ar::detail
