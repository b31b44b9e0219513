#pragma once
// Small SVG charts for the HTML report: axes with ticks and labels, a legend,
// lines, steps, markers, grouped bars and stacked bars. Our own code, no
// library and no script, so the page is one self-contained file that renders
// the same anywhere. Every string that reaches the SVG goes through escape():
// workload names, ideas and reasons come from the log, and an agent writes
// some of them.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ar::svg {

// & < > " ' as entities: safe in element text and in quoted attribute values.
// Invalid UTF-8 is replaced, so a stray byte cannot break the document.
std::string escape(std::string_view s);

// Data -> pixels on one axis; `log` maps log10 (values <= 0 are not drawn).
struct Scale {
  double lo = 0, hi = 1;
  bool log = false;
  double px_lo = 0, px_hi = 1;
  double operator()(double v) const;
};

// A range covering `values` (non-finite ones, and on a log axis those <= 0,
// ignored): padded a little, widened when empty or a single value, snapped to
// decades on a log axis. `include` (e.g. 1.0 for a speedup) is always inside.
Scale fit_scale(const std::vector<double>& values, bool log, double px_lo, double px_hi,
                std::optional<double> include = std::nullopt);
// 3 to ~8 round values within [lo, hi] (1, 2, 5 x 10^k steps).
std::vector<double> linear_ticks(double lo, double hi, int target = 5);
// Powers of ten within [lo, hi]; with 1, 2 and 5 multiples when that gives fewer than 3.
std::vector<double> log_ticks(double lo, double hi);
// "0", "0.5", "1.25", "20", "1k", "3.5M", "1e-05": short, and exact for round ticks.
std::string tick_text(double v);

struct Point {
  double x = 0, y = 0;
  std::string label;   // drawn beside the point when not empty
};

struct Series {
  enum class Style { Line, Step, Markers };
  std::string name;       // legend text; "" keeps it out of the legend
  std::string colour;     // CSS colour, e.g. "#1f77b4"
  Style style = Style::Line;
  bool hollow = false;    // Markers: open circles
  double radius = 3.5;    // Markers
  double width = 2;       // Line, Step
  bool dashed = false;
  std::vector<Point> points;

  static Series line(std::string name, std::string colour, double width = 2) {
    Series s;
    s.name = std::move(name);
    s.colour = std::move(colour);
    s.width = width;
    return s;
  }
  static Series step(std::string name, std::string colour) {
    Series s = line(std::move(name), std::move(colour));
    s.style = Style::Step;
    return s;
  }
  static Series markers(std::string name, std::string colour, double radius, bool hollow) {
    Series s = line(std::move(name), std::move(colour));
    s.style = Style::Markers;
    s.radius = radius;
    s.hollow = hollow;
    return s;
  }
};

struct Chart {
  std::string title, x_label, y_label;
  bool x_log = false, y_log = false;
  std::optional<double> x_include, y_include;   // a value each axis must show
  int width = 640, height = 320;
};

// An x/y chart of the series; a chart with no drawable point says so inside its frame.
std::string xy_chart(const Chart& chart, const std::vector<Series>& series);

// Horizontal grouped bars: one group per label, one bar per series (legend
// names and colours), each bar with its text at the end (e.g. "28.9 µs").
struct BarGroup {
  std::string label;
  std::vector<std::optional<double>> values;   // one per series; nullopt: no bar
  std::vector<std::string> notes;              // one per series, may be empty
};
std::string bar_chart(const std::string& title, const std::string& x_label, const std::vector<std::string>& names,
                      const std::vector<std::string>& colours, const std::vector<BarGroup>& groups, int width = 640);

// Vertical stacked bars: one column per window (its label under it), one
// segment per category (legend names and colours) holding its count.
struct StackColumn {
  std::string label;
  std::vector<int> counts;   // one per category
};
std::string stacked_bars(const std::string& title, const std::string& x_label, const std::string& y_label,
                         const std::vector<std::string>& names, const std::vector<std::string>& colours,
                         const std::vector<StackColumn>& columns, int width = 640, int height = 260);

}  // namespace ar::svg
