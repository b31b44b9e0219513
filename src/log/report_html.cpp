// The report as one self-contained HTML page: inline CSS, inline SVG drawn by
// svg_plot.cpp, no script, no font, no image, nothing fetched. A
// Content-Security-Policy forbids scripts and every network request, so even
// a string that escaped escape() could not run or call home.
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "autoresearch/log/report_model.h"
#include "autoresearch/log/svg_plot.h"
#include "report_format.h"

namespace ar {

namespace {

using svg::escape;

// One colour per meaning, the same in every chart: the start is orange, the
// best purple, the best-so-far line blue, keeps green, the roofline red.
constexpr const char* kStart = "#ff7f0e";
constexpr const char* kBest = "#9467bd";
constexpr const char* kProgress = "#1f77b4";
constexpr const char* kKeep = "#2ca02c";
constexpr const char* kCeiling = "#d62728";
constexpr const char* kTried = "#b8b8b8";

const std::map<std::string, const char*>& decision_colours() {
  static const std::map<std::string, const char*> colours = {
      {"keep", kKeep},          {"discard", "#9e9e9e"},           {"build_error", "#8c564b"},
      {"wrong", "#e377c2"},     {"timeout", "#bcbd22"},           {"crash", "#17becf"},
      {"rejected_by_guard", "#ffbb78"}, {"agent_error", "#aec7e8"}, {"interrupted", "#c5b0d5"},
      {"abandoned", "#7f7f7f"}, {"error", "#393b79"},
  };
  return colours;
}

std::string decision_colour(const std::string& d) {
  auto it = decision_colours().find(d);
  return it == decision_colours().end() ? "#555555" : it->second;
}

constexpr const char* kStyle = R"(
body{margin:0;background:#f6f6f4;color:#222;font:14px/1.45 sans-serif}
main{max-width:1320px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:22px;margin:8px 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ccc;padding-bottom:4px}
.meta{color:#555;margin:0 0 12px}
.result{background:#fff;border:1px solid #ddd;border-radius:6px;padding:12px 16px;margin:12px 0}
.big{font-size:30px;font-weight:bold;margin-right:10px}
.charts{display:flex;flex-wrap:wrap;gap:12px}
.chart{border:1px solid #ddd;border-radius:4px;background:#fff}
table{border-collapse:collapse;background:#fff;margin:8px 0}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:right;white-space:nowrap}
th{background:#eee}td.l,th.l{text-align:left}
pre{background:#fff;border:1px solid #ddd;padding:10px 12px;overflow-x:auto}
.note{color:#7a4b00}
.small{color:#666;font-size:12px}
)";

std::string td(const std::string& s, bool left = false) {
  return std::string(left ? "<td class=\"l\">" : "<td>") + escape(s) + "</td>";
}

std::string th(const std::string& s, bool left = false) {
  return std::string(left ? "<th class=\"l\">" : "<th>") + escape(s) + "</th>";
}

// The best vs the start after each candidate, against its number and against
// time; every candidate's own estimate as a grey dot, keeps in green.
std::string progress_charts(const Report& r) {
  std::string out;
  for (bool by_time : {false, true}) {
    svg::Series tried = svg::Series::markers("candidate (its estimate)", kTried, 2.5, true);
    svg::Series best = svg::Series::step("best so far", kProgress);
    svg::Series keeps = svg::Series::markers("keep", kKeep, 5, false);
    best.points.push_back({0, 1, ""});
    for (const ReportStep& s : r.steps) {
      if (by_time && !s.seconds) continue;
      const double x = by_time ? *s.seconds / 60.0 : s.id;
      if (s.estimate) tried.points.push_back({x, *s.estimate, ""});
      best.points.push_back({x, s.best, ""});
      if (s.keep) keeps.points.push_back({x, s.best, "#" + std::to_string(s.id)});
    }
    // The result as re-measured at the end, where it differs from the last keep's figure.
    if (r.result.speedup && !best.points.empty() && r.finished && r.keeps > 0) {
      const double end_x = by_time ? r.wall_seconds / 60.0 : best.points.back().x;
      if (!by_time || r.wall_seconds > 0) best.points.push_back({std::max(end_x, best.points.back().x), *r.result.speedup, ""});
    }
    svg::Chart c;
    c.title = by_time ? "best speedup vs the start, over time" : "best speedup vs the start, per candidate";
    c.x_label = by_time ? "minutes since the start" : "candidate";
    c.y_label = "speedup vs the start (x)";
    c.y_include = 1.0;
    c.x_include = 0.0;
    c.width = 640;
    c.height = 320;
    out += svg::xy_chart(c, {tried, best, keeps});
  }
  return out;
}

bool all_on_roofline(const Report& r) {
  if (r.workloads.empty()) return false;
  for (const ReportWorkload& w : r.workloads)
    if (!w.start_at || !w.best_at || w.start_at->bound == "unknown" || w.best_at->bound == "unknown") return false;
  return true;
}

// Start against best per workload: as % of the roofline where every workload
// has one, else the best's time as a share of the start's.
std::string workload_bars(const Report& r) {
  const bool roofline = all_on_roofline(r);
  std::vector<svg::BarGroup> groups;
  for (const ReportWorkload& w : r.workloads) {
    svg::BarGroup g;
    g.label = w.name;
    if (roofline) {
      g.values = {w.start_at->pct_of_roofline, w.best_at->pct_of_roofline};
    } else {
      const bool both = w.start_us && w.best_us;
      g.values = {both ? std::optional<double>(100.0) : std::nullopt,
                  both ? std::optional<double>(*w.best_us / *w.start_us * 100) : std::nullopt};
    }
    g.notes = {report::micros(w.start_us) + " µs",
               report::micros(w.best_us) + " µs" + (w.ratio ? " (" + report::ratio(w.ratio) + ")" : "")};
    groups.push_back(std::move(g));
  }
  return svg::bar_chart(roofline ? "per workload: % of the roofline, start and best" : "per workload: time, start and best",
                        roofline ? "% of the roofline (higher is better)" : "time as % of the start's (lower is better)",
                        {"start", "best"}, {kStart, kBest}, groups, 1290);
}

// Arithmetic intensity against achieved FLOP/s, log-log, under the measured
// ceilings: min(peak FLOP/s, intensity x peak bandwidth).
std::string roofline_chart(const Report& r) {
  svg::Series ceiling = svg::Series::line(
      "roofline (" + (r.roofline.source.empty() ? std::string("peaks") : r.roofline.source) + ")", kCeiling);
  svg::Series start = svg::Series::markers("start", kStart, 5, true);
  svg::Series best = svg::Series::markers("best", kBest, 4, false);
  std::vector<svg::Series> links;
  double lo = INFINITY, hi = 0;
  for (const ReportWorkload& w : r.workloads) {
    if (!w.flops || !w.bytes || *w.flops <= 0 || *w.bytes <= 0) continue;
    const double ai = *w.flops / *w.bytes;
    lo = std::min(lo, ai);
    hi = std::max(hi, ai);
    std::optional<double> ys, yb;
    // TFLOP/s: the unit the tables use, and short tick labels.
    if (w.start_us) ys = *w.flops / (*w.start_us * 1e-6) / 1e12;
    if (w.best_us) yb = *w.flops / (*w.best_us * 1e-6) / 1e12;
    if (ys) start.points.push_back({ai, *ys, ""});
    // Workloads of one shape class sit on one spot: name the first only, so the labels stay legible.
    bool crowded = false;
    if (yb)
      for (const svg::Point& p : best.points)
        crowded = crowded || (!p.label.empty() && std::abs(std::log10(p.x / ai)) < 0.05 &&
                              std::abs(std::log10(p.y / *yb)) < 0.05);
    if (yb) best.points.push_back({ai, *yb, crowded ? std::string() : w.name});
    if (ys && yb) {
      links.push_back(svg::Series::line("", "#cfcfcf", 1));
      links.back().points = {{ai, *ys, ""}, {ai, *yb, ""}};
    }
  }
  svg::Chart c;
  c.title = "roofline: achieved rate against arithmetic intensity";
  c.x_label = "arithmetic intensity (FLOP per byte)";
  c.y_label = "achieved TFLOP/s";
  c.x_log = c.y_log = true;
  c.width = 1290;
  c.height = 440;
  const double peak = r.roofline.peak_flops, bw = r.roofline.peak_bytes_per_s;
  if (peak > 0 && bw > 0 && hi > 0) {
    const double ridge = peak / bw;
    // From decade to decade, as the log axis is drawn: the ceilings span the whole chart.
    const double x0 = std::pow(10.0, std::floor(std::log10(std::min(lo, ridge))));
    const double x1 = std::pow(10.0, std::ceil(std::log10(std::max(hi, ridge) * 1.5)));
    ceiling.points = {{x0, x0 * bw / 1e12, ""}, {ridge, peak / 1e12, ""}, {x1, peak / 1e12, ""}};
  }
  std::vector<svg::Series> all = links;
  for (auto* s : {&ceiling, &start, &best}) all.push_back(*s);
  return svg::xy_chart(c, all);
}

// Candidates per window, stacked by decision: how the run's luck changed.
std::string decisions_chart(const Report& r) {
  std::vector<std::string> names, colours;
  for (const ReportCount& d : r.decisions) {
    names.push_back(d.name);
    colours.push_back(decision_colour(d.name));
  }
  const size_t n = r.steps.size();
  const size_t window = std::max<size_t>(1, (n + 23) / 24);
  std::vector<svg::StackColumn> columns;
  for (size_t start = 0; start < n; start += window) {
    svg::StackColumn col;
    const size_t end = std::min(n, start + window);
    col.label = end - start == 1 ? std::to_string(r.steps[start].id)
                            : fmt::format("{}–{}", r.steps[start].id, r.steps[end - 1].id);
    col.counts.assign(names.size(), 0);
    for (size_t i = start; i < end; ++i)
      for (size_t k = 0; k < names.size(); ++k)
        if (names[k] == r.steps[i].decision) ++col.counts[k];
    columns.push_back(std::move(col));
  }
  return svg::stacked_bars(fmt::format("decisions over time ({} candidate{} per bar)", window, window == 1 ? "" : "s"),
                           "candidates", "count", names, colours, columns, 1290, 280);
}

std::string workload_table(const Report& r) {
  std::string out = "<table><tr>" + th("workload", true) + th("start µs") + th("best µs") + th("speedup") +
                    th("95% CI") + th("TFLOP/s start → best") + th("GB/s start → best") +
                    th("% of roofline start → best", true) + "</tr>";
  for (const ReportWorkload& w : r.workloads) {
    auto tf = [&](const std::optional<RooflinePosition>& p) {
      return p && w.flops ? report::rate(p->tflops) : std::string("-");
    };
    auto gb = [&](const std::optional<RooflinePosition>& p) {
      return p && w.bytes ? report::rate(p->gbps) : std::string("-");
    };
    out += "<tr>" + td(w.name, true) + td(report::micros(w.start_us)) + td(report::micros(w.best_us)) +
           td(report::ratio(w.ratio)) + td(report::ratio_ci(w.ratio_ci)) +
           td(report::start_to_best(tf(w.start_at), tf(w.best_at))) +
           td(report::start_to_best(gb(w.start_at), gb(w.best_at))) +
           td(report::start_to_best(report::roofline_cell(w.start_at), report::roofline_cell(w.best_at)), true) +
           "</tr>";
  }
  return out + "</table>";
}

std::string winners_table(const Report& r) {
  std::string out = "<table><tr>" + th("workload", true) + th("fastest verified", true) + th("idea", true) +
                    th("its µs") + th("its speedup") + th("the best's") + th("vs the best") +
                    th("measured", true) + "</tr>";
  for (const ReportWinner& w : r.winners)
    out += "<tr>" + td(w.workload, true) + td(report::winner_name(w), true) + td(w.idea, true) +
           td(report::micros(w.us)) + td(report::ratio(w.speedup)) + td(report::ratio(w.best)) +
           td(report::winner_gain(w)) + td(w.measured.empty() ? "-" : w.measured, true) + "</tr>";
  return out + "</table>";
}

std::string counts_table(const Report& r) {
  std::string out = "<table><tr>" + th("decision", true) + th("candidates") + th("share") + "</tr>";
  const double n = static_cast<double>(r.steps.size());
  for (const ReportCount& d : r.decisions)
    out += "<tr>" + td(d.name, true) + td(std::to_string(d.count)) + td(n > 0 ? report::percent(d.count / n) : "-") +
           "</tr>";
  return out + "</table>";
}

std::string time_table(const Report& r) {
  std::string out = "<table><tr>" + th("phase", true) + th("time") + th("share of wall time") + "</tr>";
  for (const ReportPhase& p : r.phases)
    out += "<tr>" + td(phase_label(p.name), true) + td(report::duration(p.seconds)) +
           td(r.wall_seconds > 0 ? report::percent(p.seconds / r.wall_seconds) : "-") + "</tr>";
  return out + "</table>";
}

}  // namespace

std::string render_report_html(const Report& r) {
  const std::string title = fmt::format("run {} · kernel {}", r.run_id.empty() ? "-" : r.run_id,
                                        r.kernel.empty() ? "-" : r.kernel);
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>autoresearch report: " +
      escape(title) + "</title><style>" + kStyle + "</style></head><body><main>\n";
  out += "<h1>" + escape(title) + "</h1>";
  std::string meta = "agent " + (r.agent.empty() ? std::string("-") : r.agent);
  if (!r.device.empty()) meta += " · device " + r.device;
  if (!r.started.empty()) meta += " · started " + r.started;
  if (!r.branch.empty()) meta += " · branch " + r.branch;
  out += "<p class=\"meta\">" + escape(meta) + "</p>\n";

  out += "<div class=\"result\"><span class=\"big\">" + escape(report::ratio(r.result.speedup)) + "</span>" +
         escape(report::result_sentence(r)) + "<br>" + escape(report::ending_sentence(r)) + "<br>" +
         escape(report::keep_sentence(r)) + " · wall time " + escape(report::duration(r.wall_seconds)) + " · " +
         escape(report::cost_sentence(r)) + "</div>\n";
  for (const auto& n : r.notes) out += "<p class=\"note\">note: " + escape(n) + "</p>";

  out += "<h2>progress</h2><div class=\"charts\">" + progress_charts(r) + "</div>\n";
  out += "<p class=\"small\">The line is the best vs the start after each candidate (a keep's interleaved measurement "
         "against the start; the last point is the result). Grey circles: each candidate's own estimate.</p>\n";

  out += "<h2>per workload: start → best</h2>";
  if (r.workloads.empty()) {
    out += "<p>no per-workload measurement in the log</p>";
  } else {
    out += "<p class=\"small\">" + escape(r.workloads_measured) + "; speedup = start / best.</p>";
    out += "<div class=\"charts\">" + workload_bars(r) + "</div>" + workload_table(r) + "\n";
    out += "<h2>roofline</h2><div class=\"charts\">" + roofline_chart(r) + "</div>\n";
    out += "<p class=\"small\">Open circles: the start; filled: the best; one line per workload joins them.</p>";
  }

  if (!r.winners.empty()) {
    out += "<h2>per-workload winners</h2><p>" + escape(report::winners_sentence(r)) + "</p>" + winners_table(r) +
           "<p class=\"small\">Speedups vs the start, chained from each candidate's interleaved ratio to its "
           "incumbent on that workload. A screen is short: re-measure before dispatching.</p>\n";
  }

  out += "<h2>decisions</h2><p>" + escape(report::keep_sentence(r)) + "</p><div class=\"charts\">" +
         decisions_chart(r) + "</div>" + counts_table(r) + "\n";

  out += "<h2>where the time went</h2><p>wall time " + escape(report::duration(r.wall_seconds)) + "; " +
         escape(r.phases_note) + "</p>" + time_table(r) + "\n";
  if (!r.phases_missing.empty()) out += "<p class=\"small\">" + escape(report::missing_phases_sentence(r)) + "</p>\n";

  out += "<h2>tokens and cost</h2><p>" + escape(report::cost_sentence(r)) + "</p>\n";

  out += "<h2>reproduce the best</h2><p>" +
         escape(r.best_commit.empty() ? std::string("nothing was kept: the start is the best")
                                      : fmt::format("the best is candidate #{}, commit {}", r.best_candidate,
                                                    r.best_commit)) +
         "</p>";
  if (!r.reproduce.empty()) {
    out += "<pre>";
    for (const auto& line : r.reproduce) out += escape(line) + "\n";
    out += "</pre>";
  }
  out += "\n</main></body></html>\n";
  return out;
}

}  // namespace ar
