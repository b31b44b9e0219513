#include "autoresearch/log/log_view.h"

#include <algorithm>
#include <array>
#include <optional>

#include <fmt/format.h>

#include "autoresearch/log/run_list.h"
#include "json_fields.h"
#include "text_columns.h"

namespace ar {

using nlohmann::json;
using detail::Align;
using detail::field;
using detail::interval;
using detail::number;
using detail::text;

namespace {

// The idea and reason columns give way to the terminal's width. One space
// between the short fixed columns, two before the free text.
constexpr size_t kMinTextWidth = 12;
constexpr const char* kGap = " ";
constexpr const char* kWideGap = "  ";

std::string ratio_cell(std::optional<double> ratio, std::optional<std::array<double, 2>> ci) {
  if (!ratio) return "-";
  std::string s = fmt::format("{:.3f}x", *ratio);
  if (ci) s += fmt::format(" ({:.3f}-{:.3f})", (*ci)[0], (*ci)[1]);
  return s;
}

std::string seconds_cell(std::optional<double> s) {
  return s ? fmt::format("{:.1f}s", *s) : "-";
}

// "2026-11-30T14:42:44Z" -> "14:42": the date is in the summary, the row has no room
// for more, and the JSON view keeps the full stamps.
std::string clock_time(const std::string& iso) {
  if (iso.size() >= 16 && iso[10] == 'T') return iso.substr(11, 5);
  return iso.empty() ? "-" : iso;
}

std::string tunables_text(const json& candidate) {
  const json* t = field(candidate, {"tunables"});
  if (!t || !t->is_object()) return "";
  std::string out;
  for (const auto& [name, value] : t->items()) {
    if (!out.empty()) out += ' ';
    out += name + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out;
}

const char* decision_colour(const std::string& decision) {
  if (decision == "keep") return "\x1b[1;32m";
  if (decision == "discard") return "\x1b[2m";
  if (decision == "timeout" || decision == "rejected_by_guard") return "\x1b[33m";
  if (decision == "build_error" || decision == "wrong" || decision == "crash") return "\x1b[31m";
  return nullptr;
}

struct Row {
  std::string id, finished, decision, speedup, vs_base, build, verify, idea, reason;
};

Row make_row(const json& c, bool* screened_only) {
  Row r;
  auto id = number(c, {"id"});
  r.id = id ? fmt::format("{}", static_cast<long long>(*id)) : "-";
  std::string when = text(c, {"finished"});
  r.finished = clock_time(when.empty() ? text(c, {"started"}) : when);
  r.decision = text(c, {"decision"});
  if (r.decision.empty()) r.decision = "-";
  if (auto s = number(c, {"speedup"})) {
    r.speedup = ratio_cell(s, interval(c, {"speedup_ci"}));
  } else if (auto s = number(c, {"screen", "speedup"})) {
    // Discarded at the screen: its only figure is the quick one, marked as such.
    r.speedup = "~" + ratio_cell(s, interval(c, {"screen", "ci"}));
    *screened_only = true;
  } else {
    r.speedup = "-";
  }
  auto vb = number(c, {"vs_baseline"});
  r.vs_base = vb ? fmt::format("{:.3f}x", *vb) : "-";
  r.build = seconds_cell(number(c, {"build", "seconds"}));
  r.verify = seconds_cell(number(c, {"verify", "seconds"}));
  r.idea = detail::one_line(text(c, {"idea"}));
  if (r.idea.empty()) r.idea = tunables_text(c);  // the tuner's idea is its tunables
  r.reason = detail::one_line(text(c, {"reason"}));
  return r;
}

std::string summary_line(const LogContents& log, size_t candidates) {
  const json& h = log.header;
  std::string run = text(h, {"run_id"});
  std::string kernel = text(h, {"kernel"});
  std::string started = text(h, {"started"});

  std::optional<size_t> workloads;
  std::optional<double> aa = std::nullopt;
  size_t kept = 0;
  for (const json& line : log.lines) {
    std::string type = text(line, {"type"});
    if (type == "baseline") {
      const json* w = field(line, {"bench", "workloads"});
      if (w && w->is_array()) workloads = w->size();
      if (auto hw = number(line, {"aa", "half_width"})) aa = hw;
    } else if (type == "candidate" && text(line, {"decision"}) == "keep") {
      ++kept;
    }
  }

  // Two lines, so a long run id does not push the numbers off the screen.
  std::string s = fmt::format("run {}  kernel {}", run.empty() ? "-" : run,
                              kernel.empty() ? "-" : kernel);
  if (!started.empty()) s += fmt::format("  started {}", started);
  s += "\n";
  if (workloads || aa) {
    s += "baseline";
    if (workloads) s += fmt::format(" {} workloads", *workloads);
    if (aa) s += fmt::format(" (A/A ±{:.2f}%)", *aa * 100);
  } else {
    s += "baseline -";
  }
  // The same number, and the same words, as the final line below.
  const RunResult result = current_result(log);
  s += result.speedup ? fmt::format("  result {} vs the start ({})", ratio_cell(result.speedup, result.ci),
                                    result.measured)
                      : "  result -";
  s += fmt::format("  {} candidates, {} kept", candidates, kept);
  return s;
}

// "start", "after #25", "on resume after #40": when an A/A measurement was taken.
std::string aa_when(const json& line) {
  std::string why = text(line, {"why"});
  auto after = number(line, {"after_id"});
  std::string id = after ? fmt::format("#{}", static_cast<long long>(*after)) : "?";
  if (why == "baseline") return "start";
  if (why == "resume") return "resume after " + id;
  return "after " + id;
}

std::string aa_item(const json& line) {
  auto hw = number(line, {"half_width"});
  auto est = number(line, {"speedup"});
  std::string s = aa_when(line) + " " + (hw ? fmt::format("±{:.2f}%", *hw * 100) : "-");
  if (est) s += fmt::format(" ({:.4f}x)", *est);
  return s;
}

// Every A/A measurement of the run, wrapped to the width: the half-width the
// rule used, and the A/A estimate itself, whose spread across refreshes is the
// between-measurement variation a single CI does not show.
std::string aa_history(const LogContents& log, size_t width) {
  std::vector<std::string> items;
  for (const json& line : log.lines)
    if (text(line, {"type"}) == "aa") items.push_back(aa_item(line));
  if (items.empty()) return "";
  std::string out, current = "noise (A/A half-width, estimate):";
  for (size_t i = 0; i < items.size(); ++i) {
    std::string piece = " " + items[i] + (i + 1 < items.size() ? "," : "");
    if (detail::display_width(current) + detail::display_width(piece) > width && current.size() > 2) {
      out += current + "\n";
      current = "  " + piece.substr(1);
    } else {
      current += piece;
    }
  }
  return out + current + "\n";
}

std::string final_line(const json& f, const LogContents& log) {
  std::string s = "final:";
  const RunResult result = current_result(log);
  s += result.speedup ? fmt::format(" {} vs the start ({}): the result", ratio_cell(result.speedup, result.ci),
                                    result.measured)
                      : " -";
  const json* reached = field(f, {"goal_reached"});
  if (reached && reached->is_boolean())
    s += reached->get<bool>() ? ", goal reached" : ", goal not reached";
  std::string stop = text(f, {"stop_reason"});
  if (!stop.empty()) s += "; stopped: " + stop;
  std::string commit = text(f, {"best_commit"});
  if (!commit.empty()) s += "; best commit " + commit.substr(0, 12);
  return s;
}

// Column widths. The fixed columns fit their contents (or, when following,
// what any later row can hold); the idea and the reason share what is left.
struct Layout {
  size_t id = 0, fin = 0, dec = 0, spd = 0, vb = 0, bld = 0, ver = 0, idea = 0, reason = 0;
  bool timings = true;   // the build and verify seconds; the first to go on a narrow screen
};

const Row kHead{"#", "time", "decision", "speedup (95% CI)", "vs base", "build", "verify", "idea", "reason"};

Layout layout_for(const std::vector<Row>& rows, size_t width, bool room_for_more) {
  auto widest = [&](std::string Row::*cell, size_t at_least) {
    size_t w = std::max(detail::display_width(kHead.*cell), at_least);
    for (const Row& r : rows) w = std::max(w, detail::display_width(r.*cell));
    return w;
  };
  // Following: "12345", "14:42", "rejected_by_guard", "~10.123x (10.001-10.245)", "123.456x", "1234.5s".
  Layout l;
  l.id = widest(&Row::id, room_for_more ? 5 : 0);
  l.fin = widest(&Row::finished, room_for_more ? 5 : 0);
  l.dec = widest(&Row::decision, room_for_more ? 17 : 0);
  l.spd = widest(&Row::speedup, room_for_more ? 21 : 0);
  l.vb = widest(&Row::vs_base, room_for_more ? 8 : 0);
  l.bld = widest(&Row::build, room_for_more ? 7 : 0);
  l.ver = widest(&Row::verify, room_for_more ? 7 : 0);
  size_t fixed = l.id + l.fin + l.dec + l.spd + l.vb + l.bld + l.ver + 6 + 2 * 2;
  if (fixed + 2 * kMinTextWidth > width) {
    l.timings = false;
    fixed -= l.bld + l.ver + 2;
  }
  const size_t room = std::max(width - std::min(fixed, width), 2 * kMinTextWidth);
  const size_t idea_need = widest(&Row::idea, room_for_more ? room / 2 : 0);
  const size_t reason_need = widest(&Row::reason, 0);
  // When both want more, the reason (why it was kept or thrown away) gets the larger part.
  l.idea = idea_need;
  if (idea_need + reason_need > room)
    l.idea = std::min(idea_need, std::max(room * 2 / 5, room - std::min(reason_need, room)));
  l.reason = room - l.idea;
  return l;
}

std::string render_row(const Row& r, const Layout& l, bool colour, bool is_head) {
  std::string decision = detail::pad(r.decision, l.dec, Align::Left);
  if (colour && !is_head) {
    if (const char* c = decision_colour(r.decision)) decision = std::string(c) + decision + "\x1b[0m";
  }
  std::string line = detail::pad(r.id, l.id, Align::Right) + kGap + detail::pad(r.finished, l.fin, Align::Left) +
                     kGap + decision + kGap + detail::pad(r.speedup, l.spd, Align::Left) + kGap +
                     detail::pad(r.vs_base, l.vb, Align::Right) +
                     (l.timings ? kGap + detail::pad(r.build, l.bld, Align::Right) + kGap +
                                      detail::pad(r.verify, l.ver, Align::Right)
                                : std::string()) +
                     kWideGap +
                     detail::pad(detail::truncate_to_width(r.idea, l.idea), l.idea, Align::Left) + kWideGap +
                     detail::truncate_to_width(r.reason, l.reason);
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line + "\n";
}

// The log up to and including line i: a final line states the result as it
// was then, whatever a later resume measured.
LogContents upto(const LogContents& log, size_t i) {
  LogContents part;
  part.header = log.header;
  part.lines.assign(log.lines.begin(), log.lines.begin() + static_cast<long>(std::min(i + 1, log.lines.size())));
  return part;
}

constexpr const char* kScreenedLegend = "~ screened only: quick workloads, few samples\n";

}  // namespace

std::string render_log_table(const LogContents& log, bool colour, size_t width) {
  std::vector<Row> rows;
  bool screened_only = false;
  std::optional<size_t> final_at;
  for (size_t i = 0; i < log.lines.size(); ++i) {
    std::string type = text(log.lines[i], {"type"});
    if (type == "candidate") rows.push_back(make_row(log.lines[i], &screened_only));
    if (type == "final") final_at = i;
  }
  const Layout l = layout_for(rows, width, false);

  std::string out = summary_line(log, rows.size()) + "\n";
  out += aa_history(log, width);
  if (log.torn_tail) out += "(the log's last line was torn by a crash and is not shown)\n";
  if (rows.empty()) {
    out += "no candidates yet\n";
  } else {
    out += render_row(kHead, l, colour, true);
    for (const Row& r : rows) out += render_row(r, l, colour, false);
  }
  if (screened_only) out += kScreenedLegend;
  if (final_at) out += final_line(log.lines[*final_at], upto(log, *final_at)) + "\n";
  return out;
}

std::string LogFollower::update(const LogContents& log) {
  std::string out;
  if (!started_) {
    size_t candidates = 0;
    for (const json& line : log.lines) candidates += text(line, {"type"}) == "candidate";
    out += summary_line(log, candidates) + "\n";
    out += render_row(kHead, layout_for({}, width_, true), colour_, true);
    started_ = true;
  }
  // The layout depends on nothing but the width, so every appended row lines up.
  const Layout l = layout_for({}, width_, true);
  for (size_t i = shown_; i < log.lines.size(); ++i) {
    const json& line = log.lines[i];
    std::string type = text(line, {"type"});
    if (type == "candidate") {
      bool screened = false;
      out += render_row(make_row(line, &screened), l, colour_, false);
      if (screened && !legend_shown_) {
        out += kScreenedLegend;
        legend_shown_ = true;
      }
    } else if (type == "aa" && text(line, {"why"}) != "baseline") {
      out += "   noise (A/A): " + aa_item(line) + "\n";
    } else if (type == "resume") {
      auto after = number(line, {"after_id"});
      out += after ? fmt::format("   resumed after #{}\n", static_cast<long long>(*after)) : "   resumed\n";
    } else if (type == "final") {
      out += final_line(line, upto(log, i)) + "\n";
    }
  }
  shown_ = log.lines.size();
  return out;
}

json render_log_json(const LogContents& log) {
  json out = {{"header", log.header}, {"experiments", json::array()}};
  for (const json& line : log.lines) out["experiments"].push_back(line);
  if (log.torn_tail) out["torn_tail"] = true;
  return out;
}

}  // namespace ar
