// The report as text: the terminal summary, Markdown, CSV and JSON. One
// builder of tables for the first two, so a figure reads the same in both.
#include <map>

#include <fmt/format.h>

#include "autoresearch/log/report_model.h"
#include "report_format.h"
#include "text_columns.h"

namespace ar {

using detail::Align;
using nlohmann::json;

namespace {

struct Table {
  std::vector<std::string> titles;
  std::vector<Align> aligns;
  std::vector<std::vector<std::string>> rows;
};

// Aligned in a terminal, and a valid Markdown table when pasted.
std::string render_table(const Table& t) {
  std::vector<size_t> widths;
  for (size_t i = 0; i < t.titles.size(); ++i) {
    size_t w = std::max<size_t>(3, detail::display_width(t.titles[i]));
    for (const auto& row : t.rows) w = std::max(w, detail::display_width(row[i]));
    widths.push_back(w);
  }
  std::string out = "|";
  for (size_t i = 0; i < t.titles.size(); ++i) out += " " + detail::pad(t.titles[i], widths[i], t.aligns[i]) + " |";
  out += "\n|";
  for (size_t i = 0; i < t.titles.size(); ++i) {
    const bool right = t.aligns[i] == Align::Right;
    out += std::string(widths[i] + (right ? 1 : 2), '-') + (right ? ":|" : "|");
  }
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (size_t i = 0; i < row.size(); ++i) out += " " + detail::pad(row[i], widths[i], t.aligns[i]) + " |";
    out += "\n";
  }
  return out;
}

// Markdown reads "|" inside a cell as a column break.
std::string cell(const std::string& s) {
  std::string out;
  for (char c : detail::one_line(s)) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

Table workload_table(const Report& r) {
  Table t{{"workload", "start µs", "best µs", "speedup", "95% CI", "TFLOP/s", "GB/s", "% of roofline"},
          {Align::Left, Align::Right, Align::Right, Align::Right, Align::Left, Align::Right, Align::Right,
           Align::Left},
          {}};
  for (const ReportWorkload& w : r.workloads) {
    auto tflops = [&](const std::optional<RooflinePosition>& p) {
      return p && w.flops ? report::rate(p->tflops) : std::string("-");
    };
    auto gbps = [&](const std::optional<RooflinePosition>& p) {
      return p && w.bytes ? report::rate(p->gbps) : std::string("-");
    };
    t.rows.push_back({cell(w.name), report::micros(w.start_us), report::micros(w.best_us), report::ratio(w.ratio),
                      report::ratio_ci(w.ratio_ci), report::start_to_best(tflops(w.start_at), tflops(w.best_at)),
                      report::start_to_best(gbps(w.start_at), gbps(w.best_at)),
                      report::start_to_best(report::roofline_cell(w.start_at), report::roofline_cell(w.best_at))});
  }
  return t;
}

Table winners_table(const Report& r) {
  Table t{{"workload", "fastest verified", "idea", "its speedup", "the best's", "vs the best", "measured"},
          {Align::Left, Align::Left, Align::Left, Align::Right, Align::Right, Align::Right, Align::Left},
          {}};
  for (const ReportWinner& w : r.winners)
    t.rows.push_back({cell(w.workload), report::winner_name(w), cell(detail::truncate_to_width(detail::one_line(w.idea), 48)),
                      report::ratio(w.speedup), report::ratio(w.best), report::winner_gain(w),
                      w.measured.empty() ? "-" : w.measured});
  return t;
}

Table decision_table(const Report& r) {
  Table t{{"decision", "candidates", "share"}, {Align::Left, Align::Right, Align::Right}, {}};
  const double n = static_cast<double>(r.steps.size());
  for (const ReportCount& d : r.decisions)
    t.rows.push_back({cell(d.name), std::to_string(d.count), n > 0 ? report::percent(d.count / n) : "-"});
  return t;
}

Table time_table(const Report& r) {
  Table t{{"phase", "time", "share of wall time"}, {Align::Left, Align::Right, Align::Right}, {}};
  for (const ReportPhase& p : r.phases)
    t.rows.push_back({cell(phase_label(p.name)), report::duration(p.seconds),
                      r.wall_seconds > 0 ? report::percent(p.seconds / r.wall_seconds) : "-"});
  return t;
}

std::string peaks_line(const Roofline& roof) {
  if (roof.peak_flops <= 0 || roof.peak_bytes_per_s <= 0) return "roofline: peaks unknown, so % of roofline is not shown";
  return fmt::format("roofline: peaks {:.1f} TFLOP/s and {:.0f} GB/s ({})", roof.peak_flops / 1e12,
                     roof.peak_bytes_per_s / 1e9, roof.source.empty() ? "source not stated" : roof.source);
}

// Heading styles: the terminal's plain lines, or Markdown's.
struct Style {
  bool markdown;
  std::string heading(const std::string& h) const { return markdown ? "\n## " + h + "\n\n" : "\n" + h + "\n"; }
  std::string commands(const std::vector<std::string>& lines) const {
    std::string body;
    for (const auto& l : lines) body += (markdown ? "" : "  ") + l + "\n";
    return markdown ? "```sh\n" + body + "```\n" : body;
  }
  std::string para(const std::string& s) const { return s + (markdown ? "\n\n" : "\n"); }
};

std::string render(const Report& r, const Style& st) {
  std::string out;
  const std::string title = fmt::format("run {} · kernel {}", r.run_id.empty() ? "-" : r.run_id,
                                        r.kernel.empty() ? "-" : r.kernel);
  out += st.markdown ? "# " + cell(title) + "\n\n" : title + "\n";
  std::string who = "agent " + (r.agent.empty() ? std::string("-") : r.agent);
  if (!r.device.empty()) who += " · device " + r.device;
  if (!r.started.empty()) who += " · started " + r.started;
  if (!r.branch.empty()) who += " · branch " + r.branch;
  out += st.para(cell(who));
  out += st.para("result: " + report::result_sentence(r));
  std::string ending = report::ending_sentence(r);
  if (!ending.empty()) out += st.para(cell(ending));
  for (const auto& n : r.notes) out += st.para("note: " + n);

  out += st.heading("per workload: start → best");
  if (r.workloads.empty()) {
    out += st.para("no per-workload measurement in the log");
  } else {
    out += st.para(r.workloads_measured + "; speedup = start / best");
    out += render_table(workload_table(r));
    out += (st.markdown ? "\n" : "") + st.para(peaks_line(r.roofline));
  }

  if (!r.winners.empty()) {
    out += st.heading("per-workload winners");
    out += st.para(report::winners_sentence(r) +
                   "; speedups vs the start, chained from each candidate's interleaved ratio to its incumbent "
                   "(a screen is short: re-measure before dispatching)");
    out += render_table(winners_table(r));
  }

  out += st.heading("decisions");
  out += st.para(report::keep_sentence(r));
  if (!r.decisions.empty()) out += render_table(decision_table(r));

  out += st.heading("where the time went");
  out += st.para("wall time " + report::duration(r.wall_seconds) + "; " + r.phases_note);
  if (!r.phases.empty()) out += render_table(time_table(r));
  if (!r.phases_missing.empty()) out += (st.markdown ? "\n" : "") + st.para(report::missing_phases_sentence(r));

  out += st.heading("tokens and cost");
  out += st.para(report::cost_sentence(r));

  out += st.heading("reproduce the best");
  if (r.best_commit.empty()) out += st.para("nothing was kept: the start is the best");
  else out += st.para(fmt::format("the best is candidate #{}, commit {}", r.best_candidate, r.best_commit));
  if (!r.reproduce.empty()) out += st.commands(r.reproduce);
  return out;
}

// RFC 4180: quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_number(std::optional<double> v) { return v ? fmt::format("{:.6g}", *v) : ""; }

json position_json(const std::optional<RooflinePosition>& p) {
  if (!p) return json();
  json j = {{"tflops", p->tflops}, {"gbps", p->gbps}, {"bound", p->bound}, {"floor_us", p->floor_us}};
  if (p->bound != "unknown") j["pct_of_roofline"] = p->pct_of_roofline;
  return j;
}

template <typename T>
json optional_json(const std::optional<T>& v) {
  return v ? json(*v) : json();
}

}  // namespace

std::string render_report_text(const Report& r, size_t /*width: tables are as wide as their contents*/) {
  return render(r, Style{false});
}

std::string render_report_markdown(const Report& r) { return render(r, Style{true}); }

std::string render_report_csv(const Report& r) {
  std::string out =
      "workload,start_us,best_us,speedup,ci_low,ci_high,flops,bytes,start_tflops,best_tflops,start_gbps,best_gbps,"
      "start_pct_of_roofline,best_pct_of_roofline,bound,winner_candidate,winner_speedup,winner_measured\n";
  std::map<std::string, const ReportWinner*> winners;
  for (const ReportWinner& w : r.winners) winners[w.workload] = &w;
  for (const ReportWorkload& w : r.workloads) {
    auto tflops = [&](const auto& p) { return p && w.flops ? csv_number(p->tflops) : std::string(); };
    auto gbps = [&](const auto& p) { return p && w.bytes ? csv_number(p->gbps) : std::string(); };
    auto pct = [](const auto& p) {
      return p && p->bound != "unknown" ? csv_number(p->pct_of_roofline) : std::string();
    };
    const std::string bound = w.best_at ? w.best_at->bound : w.start_at ? w.start_at->bound : "";
    const ReportWinner* win = winners.count(w.name) ? winners[w.name] : nullptr;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(w.name), csv_number(w.start_us),
                       csv_number(w.best_us), csv_number(w.ratio),
                       w.ratio_ci ? csv_number((*w.ratio_ci)[0]) : "", w.ratio_ci ? csv_number((*w.ratio_ci)[1]) : "",
                       csv_number(w.flops), csv_number(w.bytes), tflops(w.start_at), tflops(w.best_at),
                       gbps(w.start_at), gbps(w.best_at), pct(w.start_at), pct(w.best_at), csv_field(bound),
                       win ? std::to_string(win->candidate) : "", win ? csv_number(win->speedup) : "",
                       win ? csv_field(win->measured) : "");
  }
  return out;
}

json render_report_json(const Report& r) {
  json workloads = json::array();
  for (const ReportWorkload& w : r.workloads)
    workloads.push_back({{"name", w.name},
                         {"start_us", optional_json(w.start_us)},
                         {"best_us", optional_json(w.best_us)},
                         {"speedup", optional_json(w.ratio)},
                         {"ci", optional_json(w.ratio_ci)},
                         {"flops", optional_json(w.flops)},
                         {"bytes", optional_json(w.bytes)},
                         {"start", position_json(w.start_at)},
                         {"best", position_json(w.best_at)}});
  json decisions = json::object();
  for (const ReportCount& d : r.decisions) decisions[d.name] = d.count;
  json phases = json::array();
  for (const ReportPhase& p : r.phases)
    phases.push_back({{"phase", p.name},
                      {"seconds", p.seconds},
                      {"share", r.wall_seconds > 0 ? json(p.seconds / r.wall_seconds) : json()}});
  json winners = json::array();
  for (const ReportWinner& w : r.winners)
    winners.push_back({{"workload", w.workload},
                       {"candidate", w.candidate},
                       {"idea", w.idea},
                       {"median_us", optional_json(w.us)},
                       {"speedup", optional_json(w.speedup)},
                       {"best_speedup", optional_json(w.best)},
                       {"measured", w.measured}});
  json steps = json::array();
  for (const ReportStep& s : r.steps)
    steps.push_back({{"id", s.id},
                     {"seconds", optional_json(s.seconds)},
                     {"decision", s.decision},
                     {"estimate_vs_start", optional_json(s.estimate)},
                     {"best_vs_start", s.best}});
  return {{"run_id", r.run_id},
          {"kernel", r.kernel},
          {"package", r.package},
          {"branch", r.branch},
          {"base_commit", r.base_commit},
          {"started", r.started},
          {"agent", r.agent},
          {"device", r.device},
          {"goal", r.goal},
          {"result",
           {{"speedup", optional_json(r.result.speedup)},
            {"ci", optional_json(r.result.ci)},
            {"measured", r.result.measured}}},
          {"finished", r.finished},
          {"goal_reached", r.goal_reached},
          {"stop_reason", r.stop_reason},
          {"roofline",
           {{"peak_flops", r.roofline.peak_flops},
            {"peak_bytes_per_s", r.roofline.peak_bytes_per_s},
            {"source", r.roofline.source}}},
          {"workloads_measured", r.workloads_measured},
          {"workloads", workloads},
          {"candidates", r.steps.size()},
          {"keeps", r.keeps},
          {"keep_rate", r.steps.empty() ? json() : json(static_cast<double>(r.keeps) / r.steps.size())},
          {"decisions", decisions},
          {"wall_seconds", r.wall_seconds},
          {"phases", phases},
          {"phases_note", r.phases_note},
          {"phases_missing", r.phases_missing},
          {"winners", winners},
          {"tokens", {{"in", r.tokens_in}, {"out", r.tokens_out}}},
          {"cost_usd", r.cost_usd},
          {"cost_estimated", r.cost_estimated},
          {"best_commit", r.best_commit.empty() ? json() : json(r.best_commit)},
          {"best_candidate", r.best_commit.empty() ? json() : json(r.best_candidate)},
          {"reproduce", r.reproduce},
          {"notes", r.notes},
          {"steps", steps}};
}

}  // namespace ar
