#include "autoresearch/log/bench_table.h"

#include <algorithm>

#include <fmt/format.h>

#include "text_columns.h"

namespace ar {

using nlohmann::json;
using detail::Align;

RooflinePosition roofline_position(double time_us, double flops, double bytes, const Roofline& r) {
  RooflinePosition p;
  flops = std::max(flops, 0.0);
  bytes = std::max(bytes, 0.0);
  const double compute_s = r.peak_flops > 0 ? flops / r.peak_flops : 0;
  const double memory_s = r.peak_bytes_per_s > 0 ? bytes / r.peak_bytes_per_s : 0;
  // The floor holds with one peak missing too (it is still a lower bound), which is
  // what the measurement-fault check needs.
  p.floor_us = std::max(compute_s, memory_s) * 1e6;
  if (time_us > 0) {
    const double seconds = time_us * 1e-6;
    p.tflops = flops / seconds / 1e12;
    p.gbps = bytes / seconds / 1e9;
  }
  // A percentage against half a roofline would overstate how close the kernel is:
  // without both peaks (or without any work counted) the position is unknown.
  if (r.peak_flops <= 0 || r.peak_bytes_per_s <= 0 || (flops == 0 && bytes == 0) ||
      time_us <= 0) {
    p.bound = "unknown";
    return p;
  }
  p.pct_of_roofline = p.floor_us / time_us * 100;
  p.bound = compute_s >= memory_s ? "compute" : "memory";
  return p;
}

namespace {

bool has_work(const WorkloadRow& row) { return row.flops || row.bytes; }

RooflinePosition position_of(const WorkloadRow& row, const Roofline& r) {
  return roofline_position(row.time_us.median, row.flops.value_or(0), row.bytes.value_or(0), r);
}

// Enough digits to see a 0.5% change at every magnitude, no more.
std::string micros(double us) {
  if (us < 10) return fmt::format("{:.3f}", us);
  if (us < 1000) return fmt::format("{:.2f}", us);
  return fmt::format("{:.1f}", us);
}

std::string rate(double v) { return v < 10 ? fmt::format("{:.2f}", v) : fmt::format("{:.1f}", v); }

struct Column {
  std::string title;
  Align align;
  std::vector<std::string> cells;
};

// nvbench's Markdown layout: aligned in a terminal, and pastes into a PR or a report as a table.
std::string markdown(const std::vector<Column>& columns, size_t rows) {
  std::vector<size_t> widths;
  for (const Column& c : columns) {
    size_t w = std::max<size_t>(detail::display_width(c.title), 3);
    for (const std::string& cell : c.cells) w = std::max(w, detail::display_width(cell));
    widths.push_back(w);
  }
  std::string out = "|";
  for (size_t i = 0; i < columns.size(); ++i)
    out += " " + detail::pad(columns[i].title, widths[i], columns[i].align) + " |";
  out += "\n|";
  for (size_t i = 0; i < columns.size(); ++i) {
    bool right = columns[i].align == Align::Right;
    out += std::string(widths[i] + (right ? 1 : 2), '-') + (right ? ":|" : "|");
  }
  out += "\n";
  for (size_t r = 0; r < rows; ++r) {
    out += "|";
    for (size_t i = 0; i < columns.size(); ++i)
      out += " " + detail::pad(columns[i].cells[r], widths[i], columns[i].align) + " |";
    out += "\n";
  }
  return out;
}

std::string peaks_footer(const Roofline& r) {
  std::string source = r.source.empty() ? "source not stated" : r.source;
  if (r.peak_flops <= 0 || r.peak_bytes_per_s <= 0)
    return fmt::format("roofline: peaks unknown ({}), so % of roofline is not shown\n", source);
  return fmt::format("roofline: peaks {:.1f} TFLOP/s and {:.0f} GB/s ({})\n",
                     r.peak_flops / 1e12, r.peak_bytes_per_s / 1e9, source);
}

}  // namespace

std::string render_bench_table(const std::vector<WorkloadRow>& rows, const Roofline& roofline,
                               const std::string& title) {
  const bool comparing = std::any_of(rows.begin(), rows.end(), [](const WorkloadRow& r) {
    return r.other_median_us || r.ratio;
  });
  const bool clocks = std::any_of(rows.begin(), rows.end(),
                                  [](const WorkloadRow& r) { return r.sm_mhz > 0; });

  Column name{"workload", Align::Left, {}}, n{"samples", Align::Right, {}},
      median{"median µs", Align::Right, {}}, spread{"min–max µs", Align::Right, {}},
      iqr{"IQR", Align::Right, {}}, mhz{"SM MHz", Align::Right, {}},
      tflops{"TFLOP/s", Align::Right, {}}, gbps{"GB/s", Align::Right, {}},
      roof{"% roofline", Align::Right, {}}, other{"ref µs", Align::Right, {}},
      ratio{"ratio (95% CI)", Align::Right, {}};
  bool below_floor = false;
  for (const WorkloadRow& row : rows) {
    const Summary& s = row.time_us;
    const RooflinePosition p = position_of(row, roofline);
    name.cells.push_back(detail::one_line(row.name));
    n.cells.push_back(fmt::format("{}", s.n));
    median.cells.push_back(micros(s.median));
    spread.cells.push_back(micros(s.min) + "–" + micros(s.max));
    iqr.cells.push_back(s.median > 0 ? fmt::format("{:.2f}%", (s.q3 - s.q1) / s.median * 100)
                                     : "-");
    mhz.cells.push_back(row.sm_mhz > 0 ? fmt::format("{:.0f}", row.sm_mhz) : "-");
    tflops.cells.push_back(row.flops ? rate(p.tflops) : "-");
    gbps.cells.push_back(row.bytes ? rate(p.gbps) : "-");
    if (!has_work(row) || p.bound == "unknown") {
      roof.cells.push_back("-");
    } else {
      // Faster than the roofline allows is a broken measurement, never a win.
      bool fault = p.pct_of_roofline > 100;
      below_floor |= fault;
      roof.cells.push_back(fmt::format("{:.1f}% {}{}", p.pct_of_roofline, p.bound, fault ? " !" : ""));
    }
    other.cells.push_back(row.other_median_us ? micros(*row.other_median_us) : "-");
    std::string r = row.ratio ? fmt::format("{:.3f}x", *row.ratio) : "-";
    if (row.ratio && row.ratio_ci_low && row.ratio_ci_high)
      r += fmt::format(" ({:.3f}-{:.3f})", *row.ratio_ci_low, *row.ratio_ci_high);
    ratio.cells.push_back(r);
  }

  std::vector<Column> columns = {name, n, median, spread, iqr};
  if (clocks) columns.push_back(mhz);
  for (Column* c : {&tflops, &gbps, &roof}) columns.push_back(*c);
  if (comparing) {
    columns.push_back(other);
    columns.push_back(ratio);
  }

  std::string out = title.empty() ? "" : title + "\n";
  out += markdown(columns, rows.size());
  if (below_floor) out += "! faster than the physical floor: a measurement fault, not a speedup\n";
  if (comparing) out += "ratio = ref / this; above 1 means this is faster\n";
  out += peaks_footer(roofline);
  return out;
}

json bench_rows_json(const std::vector<WorkloadRow>& rows, const Roofline& roofline) {
  json out = json::array();
  for (const WorkloadRow& row : rows) {
    json j = {{"name", row.name}, {"median_us", row.time_us.median},
              {"time_us", to_json(row.time_us)}};
    if (row.sm_mhz > 0) j["sm_mhz"] = row.sm_mhz;
    if (row.flops) j["flops"] = *row.flops;
    if (row.bytes) j["bytes"] = *row.bytes;
    if (has_work(row)) {
      const RooflinePosition p = position_of(row, roofline);
      if (row.flops) j["tflops"] = p.tflops;
      if (row.bytes) j["gbps"] = p.gbps;
      j["pct_of_roofline"] = p.pct_of_roofline;
      j["bound"] = p.bound;
      j["floor_us"] = p.floor_us;
    }
    if (row.other_median_us) j["other_median_us"] = *row.other_median_us;
    if (row.ratio) j["ratio"] = *row.ratio;
    if (row.ratio_ci_low && row.ratio_ci_high)
      j["ratio_ci"] = {*row.ratio_ci_low, *row.ratio_ci_high};
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace ar
