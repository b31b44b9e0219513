#include "autoresearch/log/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

namespace ar::svg {

namespace {

constexpr const char* kFont = "font-family=\"sans-serif\"";
constexpr const char* kAxisColour = "#444";
constexpr const char* kGridColour = "#e4e4e4";

// Pixel coordinates with one decimal: enough for a sharp line, short documents.
std::string px(double v) { return fmt::format("{:.1f}", v); }

bool drawable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

// Bytes of the UTF-8 sequence starting at s[i], or 0 when it is not a valid one.
size_t utf8_length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return 0;
  return n;
}

struct Frame {
  double left, top, right, bottom;   // the plot area, in pixels
};

std::string open_svg(int width, int height, const std::string& title) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "role=\"img\" aria-label=\"{2}\"><title>{2}</title>"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>"
      "<text x=\"{3}\" y=\"18\" {4} font-size=\"14\" font-weight=\"bold\" fill=\"#222\">{2}</text>",
      width, height, escape(title), 8, kFont);
}

// One row of swatches under the title.
std::string legend(const std::vector<std::string>& names, const std::vector<std::string>& colours, double x, double y,
                   const std::vector<bool>& hollow = {}) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty()) continue;
    const std::string& c = i < colours.size() ? colours[i] : kAxisColour;
    const bool open = i < hollow.size() && hollow[i];
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\" stroke=\"{}\" stroke-width=\"2\"/>",
                       px(x), px(y - 10), open ? "#ffffff" : escape(c), escape(c));
    out += fmt::format("<text x=\"{}\" y=\"{}\" {} font-size=\"12\" fill=\"#222\">{}</text>", px(x + 16), px(y), kFont,
                       escape(names[i]));
    x += 28 + 7.0 * static_cast<double>(names[i].size());
  }
  return out;
}

std::string axis_label_x(const Frame& f, const std::string& label) {
  return fmt::format("<text x=\"{}\" y=\"{}\" {} font-size=\"12\" text-anchor=\"middle\" fill=\"#222\">{}</text>",
                     px((f.left + f.right) / 2), px(f.bottom + 34), kFont, escape(label));
}

std::string axis_label_y(const Frame& f, const std::string& label) {
  const double x = f.left - 52, y = (f.top + f.bottom) / 2;
  return fmt::format(
      "<text x=\"{0}\" y=\"{1}\" {2} font-size=\"12\" text-anchor=\"middle\" fill=\"#222\" "
      "transform=\"rotate(-90 {0} {1})\">{3}</text>",
      px(x), px(y), kFont, escape(label));
}

std::vector<double> ticks_for(const Scale& s) { return s.log ? log_ticks(s.lo, s.hi) : linear_ticks(s.lo, s.hi); }

// Grid lines, tick marks and tick labels of both axes, and the frame.
std::string axes(const Frame& f, const Scale& x, const Scale& y) {
  std::string out;
  for (double t : ticks_for(y)) {
    const double py = y(t);
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\"/>", px(f.left), px(py), px(f.right),
                       px(py), kGridColour);
    out += fmt::format("<text x=\"{}\" y=\"{}\" {} font-size=\"11\" text-anchor=\"end\" fill=\"#333\">{}</text>",
                       px(f.left - 6), px(py + 4), kFont, escape(tick_text(t)));
  }
  for (double t : ticks_for(x)) {
    const double pxx = x(t);
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\"/>", px(pxx), px(f.top), px(pxx),
                       px(f.bottom), kGridColour);
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\"/>", px(pxx), px(f.bottom), px(pxx),
                       px(f.bottom + 5), kAxisColour);
    out += fmt::format("<text x=\"{}\" y=\"{}\" {} font-size=\"11\" text-anchor=\"middle\" fill=\"#333\">{}</text>",
                       px(pxx), px(f.bottom + 18), kFont, escape(tick_text(t)));
  }
  out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{}\"/>", px(f.left),
                     px(f.top), px(f.right - f.left), px(f.bottom - f.top), kAxisColour);
  return out;
}

std::string no_data(const Frame& f, const std::string& message) {
  return fmt::format("<text x=\"{}\" y=\"{}\" {} font-size=\"13\" text-anchor=\"middle\" fill=\"#777\">{}</text>",
                     px((f.left + f.right) / 2), px((f.top + f.bottom) / 2), kFont, escape(message));
}

std::string polyline(const std::vector<std::pair<double, double>>& pts, const Series& s) {
  if (pts.size() < 2) return "";
  std::string d;
  for (const auto& [x, y] : pts) d += px(x) + "," + px(y) + " ";
  d.pop_back();
  return fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{}/>", d, escape(s.colour),
                     px(s.width), s.dashed ? " stroke-dasharray=\"6 4\"" : "");
}

}  // namespace

std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 16);
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_length(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";   // U+FFFD for a byte that is not UTF-8
      ++i;
      continue;
    }
    if (n > 1) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    const char c = s[i++];
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\n':
      case '\t': out += ' '; break;
      default:
        // Other control characters are not allowed in XML text at all.
        if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) out += c;
    }
  }
  return out;
}

double Scale::operator()(double v) const {
  double a = lo, b = hi, x = v;
  if (log) {
    a = std::log10(lo);
    b = std::log10(hi);
    x = std::log10(v);
  }
  if (b == a) return (px_lo + px_hi) / 2;
  return px_lo + (x - a) / (b - a) * (px_hi - px_lo);
}

Scale fit_scale(const std::vector<double>& values, bool log, double px_lo, double px_hi, std::optional<double> include) {
  Scale s;
  s.log = log;
  s.px_lo = px_lo;
  s.px_hi = px_hi;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double v : values)
    if (drawable(v, log)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  if (include && drawable(*include, log)) {
    lo = std::min(lo, *include);
    hi = std::max(hi, *include);
  }
  if (!std::isfinite(lo)) {   // nothing to draw: a unit range
    lo = log ? 1 : 0;
    hi = log ? 10 : 1;
  }
  if (log) {
    s.lo = std::pow(10.0, std::floor(std::log10(lo)));
    s.hi = std::pow(10.0, std::ceil(std::log10(hi)));
    if (s.hi <= s.lo) s.hi = s.lo * 10;
    return s;
  }
  if (hi == lo) {
    const double pad = lo == 0 ? 1 : std::abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  } else {
    const double pad = (hi - lo) * 0.06;
    // A range of positive values that starts near zero starts at zero.
    lo = lo >= 0 && lo - pad < 0 ? 0 : lo - pad;
    hi += pad;
  }
  s.lo = lo;
  s.hi = hi;
  return s;
}

std::vector<double> linear_ticks(double lo, double hi, int target) {
  std::vector<double> out;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return out;
  const double raw = (hi - lo) / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) {
    // Round away float noise so "0.30000000000000004" prints as "0.3".
    out.push_back(std::abs(t) < step * 1e-9 ? 0.0 : std::stod(fmt::format("{:.12g}", std::round(t / step) * step)));
    if (out.size() > 20) break;
  }
  return out;
}

std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> out;
  if (!(lo > 0) || !(hi > lo)) return out;
  const int a = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  const int b = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  const bool fine = b - a < 2;
  for (int e = a; e <= b; ++e)
    for (double m : fine ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
      const double t = m * std::pow(10.0, e);
      if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)) out.push_back(t);
    }
  return out;
}

std::string tick_text(double v) {
  const double a = std::abs(v);
  if (a == 0) return "0";
  auto trimmed = [](std::string s) {
    if (s.find('.') != std::string::npos) {
      while (s.back() == '0') s.pop_back();
      if (s.back() == '.') s.pop_back();
    }
    return s;
  };
  if (a >= 1e15 || a < 1e-3) return fmt::format("{:.0e}", v);
  static const struct {
    double scale;
    const char* suffix;
  } units[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& u : units)
    if (a >= u.scale) return trimmed(fmt::format("{:.2f}", v / u.scale)) + u.suffix;
  return trimmed(fmt::format("{:.3f}", v));
}

std::string xy_chart(const Chart& c, const std::vector<Series>& series) {
  const Frame f{72, 46, static_cast<double>(c.width) - 18, static_cast<double>(c.height) - 48};
  std::vector<double> xs, ys;
  for (const Series& s : series)
    for (const Point& p : s.points) {
      if (!drawable(p.x, c.x_log) || !drawable(p.y, c.y_log)) continue;
      xs.push_back(p.x);
      ys.push_back(p.y);
    }
  std::string out = open_svg(c.width, c.height, c.title);
  std::vector<std::string> names, colours;
  std::vector<bool> hollow;
  for (const Series& s : series) {
    names.push_back(s.name);
    colours.push_back(s.colour);
    hollow.push_back(s.style == Series::Style::Markers && s.hollow);
  }
  out += legend(names, colours, f.left, 36, hollow);
  if (xs.empty()) {
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{}\"/>", px(f.left),
                       px(f.top), px(f.right - f.left), px(f.bottom - f.top), kAxisColour);
    out += no_data(f, "nothing to plot");
    return out + "</svg>";
  }
  const Scale x = fit_scale(xs, c.x_log, f.left, f.right, c.x_include);
  const Scale y = fit_scale(ys, c.y_log, f.bottom, f.top, c.y_include);
  out += axes(f, x, y);
  out += axis_label_x(f, c.x_label) + axis_label_y(f, c.y_label);
  // Lines under markers, so a keep's marker is never hidden by the line through it.
  for (int pass = 0; pass < 2; ++pass)
    for (const Series& s : series) {
      const bool markers = s.style == Series::Style::Markers;
      if (markers != (pass == 1)) continue;
      std::vector<std::pair<double, double>> pts;
      for (const Point& p : s.points) {
        if (!drawable(p.x, c.x_log) || !drawable(p.y, c.y_log)) continue;
        if (s.style == Series::Style::Step && !pts.empty()) pts.emplace_back(x(p.x), pts.back().second);
        pts.emplace_back(x(p.x), y(p.y));
      }
      if (!markers) {
        out += polyline(pts, s);
        continue;
      }
      for (size_t i = 0, k = 0; i < s.points.size(); ++i) {
        const Point& p = s.points[i];
        if (!drawable(p.x, c.x_log) || !drawable(p.y, c.y_log)) continue;
        const auto [cx, cy] = pts[k++];
        out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\" stroke=\"{}\" stroke-width=\"1.5\"/>",
                           px(cx), px(cy), px(s.radius), s.hollow ? "#ffffff" : escape(s.colour), escape(s.colour));
        if (!p.label.empty())
          out += fmt::format("<text x=\"{}\" y=\"{}\" {} font-size=\"10\" fill=\"#333\">{}</text>", px(cx + s.radius + 3),
                             px(cy - s.radius), kFont, escape(p.label));
      }
    }
  return out + "</svg>";
}

std::string bar_chart(const std::string& title, const std::string& x_label, const std::vector<std::string>& names,
                      const std::vector<std::string>& colours, const std::vector<BarGroup>& groups, int width) {
  constexpr double kBar = 11, kGap = 8, kLabelWidth = 150, kNoteWidth = 150;
  const size_t per_group = std::max<size_t>(1, names.size());
  const double group_h = kBar * static_cast<double>(per_group) + kGap;
  const double top = 46;
  const int height = static_cast<int>(top + std::max<double>(1, static_cast<double>(groups.size())) * group_h + 44);
  const Frame f{kLabelWidth, top, static_cast<double>(width) - kNoteWidth, static_cast<double>(height) - 40};
  std::string out = open_svg(width, height, title) + legend(names, colours, 8, 36);
  std::vector<double> values;
  for (const BarGroup& g : groups)
    for (const auto& v : g.values)
      if (v && std::isfinite(*v)) values.push_back(*v);
  if (values.empty()) {
    out += no_data(f, "nothing to plot");
    return out + "</svg>";
  }
  Scale x = fit_scale(values, false, f.left, f.right, 0.0);
  x.lo = std::min(0.0, x.lo);
  for (double t : linear_ticks(x.lo, x.hi)) {
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\"/>", px(x(t)), px(f.top),
                       px(f.bottom), kGridColour);
    out += fmt::format("<text x=\"{}\" y=\"{}\" {} font-size=\"11\" text-anchor=\"middle\" fill=\"#333\">{}</text>",
                       px(x(t)), px(f.bottom + 16), kFont, escape(tick_text(t)));
  }
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const BarGroup& g = groups[gi];
    const double y0 = f.top + static_cast<double>(gi) * group_h;
    out += fmt::format("<text x=\"{}\" y=\"{}\" {} font-size=\"11\" text-anchor=\"end\" fill=\"#222\">{}</text>",
                       px(f.left - 6), px(y0 + group_h / 2), kFont, escape(g.label));
    for (size_t si = 0; si < g.values.size() && si < per_group; ++si) {
      if (!g.values[si] || !std::isfinite(*g.values[si])) continue;
      const double y = y0 + kBar * static_cast<double>(si);
      const double x0 = x(std::max(0.0, x.lo)), x1 = x(*g.values[si]);
      const std::string& c = si < colours.size() ? colours[si] : kAxisColour;
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>", px(std::min(x0, x1)), px(y),
                         px(std::max(1.0, std::abs(x1 - x0))), px(kBar - 1), escape(c));
      if (si < g.notes.size() && !g.notes[si].empty())
        out += fmt::format("<text x=\"{}\" y=\"{}\" {} font-size=\"10\" fill=\"#333\">{}</text>", px(std::max(x0, x1) + 4),
                           px(y + kBar - 2), kFont, escape(g.notes[si]));
    }
  }
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\"/>", px(x(std::max(0.0, x.lo))),
                     px(f.top), px(f.bottom), kAxisColour);
  out += axis_label_x(Frame{f.left, f.top, f.right, f.bottom - 6}, x_label);
  return out + "</svg>";
}

std::string stacked_bars(const std::string& title, const std::string& x_label, const std::string& y_label,
                         const std::vector<std::string>& names, const std::vector<std::string>& colours,
                         const std::vector<StackColumn>& columns, int width, int height) {
  const Frame f{72, 46, static_cast<double>(width) - 18, static_cast<double>(height) - 48};
  std::string out = open_svg(width, height, title) + legend(names, colours, f.left, 36);
  int most = 0;
  for (const StackColumn& c : columns) {
    int total = 0;
    for (int n : c.counts) total += std::max(0, n);
    most = std::max(most, total);
  }
  if (columns.empty() || most == 0) {
    out += no_data(f, "nothing to plot");
    return out + "</svg>";
  }
  Scale y;
  y.lo = 0;
  y.hi = most;
  y.px_lo = f.bottom;
  y.px_hi = f.top;
  for (double t : linear_ticks(0, most, 4)) {
    if (t != std::floor(t)) continue;   // counts: whole ticks only
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\"/>", px(f.left), px(y(t)), px(f.right),
                       px(y(t)), kGridColour);
    out += fmt::format("<text x=\"{}\" y=\"{}\" {} font-size=\"11\" text-anchor=\"end\" fill=\"#333\">{}</text>",
                       px(f.left - 6), px(y(t) + 4), kFont, escape(tick_text(t)));
  }
  const double slot = (f.right - f.left) / static_cast<double>(columns.size());
  const double bar = std::max(2.0, slot * 0.75);
  // Label every column when they fit, else every k-th.
  const size_t every = std::max<size_t>(1, static_cast<size_t>(std::ceil(48.0 / slot)));
  for (size_t i = 0; i < columns.size(); ++i) {
    const double x0 = f.left + slot * static_cast<double>(i) + (slot - bar) / 2;
    int below = 0;
    for (size_t k = 0; k < columns[i].counts.size(); ++k) {
      const int n = std::max(0, columns[i].counts[k]);
      if (n == 0) continue;
      const std::string& c = k < colours.size() ? colours[k] : kAxisColour;
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>", px(x0), px(y(below + n)),
                         px(bar), px(y(below) - y(below + n)), escape(c));
      below += n;
    }
    if (i % every == 0)
      out += fmt::format("<text x=\"{}\" y=\"{}\" {} font-size=\"10\" text-anchor=\"middle\" fill=\"#333\">{}</text>",
                         px(x0 + bar / 2), px(f.bottom + 16), kFont, escape(columns[i].label));
  }
  out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{}\"/>", px(f.left),
                     px(f.top), px(f.right - f.left), px(f.bottom - f.top), kAxisColour);
  out += axis_label_x(f, x_label) + axis_label_y(f, y_label);
  return out + "</svg>";
}

}  // namespace ar::svg
