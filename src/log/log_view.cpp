#include "autoresearch/log/log_view.h"

#include <algorithm>
#include <array>
#include <optional>

#include <fmt/format.h>

#include "text_columns.h"

namespace ar {

using nlohmann::json;
using detail::Align;

namespace {

// The table fits a 120-column terminal: the idea and reason columns give way.
// One space between the short fixed columns, two before the free text.
constexpr size_t kTableWidth = 120;
constexpr size_t kMinTextWidth = 12;
constexpr const char* kGap = " ";
constexpr const char* kWideGap = "  ";

// Lines come from older versions, crashed runs and other tools: every field may be
// missing, null or of another type, and the view shows "-" instead of throwing.
const json* field(const json& j, std::initializer_list<const char*> path) {
  const json* at = &j;
  for (const char* key : path) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(key);
    if (it == at->end() || it->is_null()) return nullptr;
    at = &*it;
  }
  return at;
}

std::optional<double> number(const json& j, std::initializer_list<const char*> path) {
  const json* v = field(j, path);
  if (v && v->is_number()) return v->get<double>();
  return std::nullopt;
}

std::string text(const json& j, std::initializer_list<const char*> path) {
  const json* v = field(j, path);
  if (!v) return "";
  if (v->is_string()) return v->get<std::string>();
  return v->dump(-1, ' ', false, json::error_handler_t::replace);
}

std::optional<std::array<double, 2>> interval(const json& j, std::initializer_list<const char*> path) {
  const json* v = field(j, path);
  if (!v || !v->is_array() || v->size() != 2 || !(*v)[0].is_number() || !(*v)[1].is_number())
    return std::nullopt;
  return std::array<double, 2>{(*v)[0].get<double>(), (*v)[1].get<double>()};
}

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
  std::optional<double> best;
  std::string best_id;
  for (const json& line : log.lines) {
    std::string type = text(line, {"type"});
    if (type == "baseline") {
      const json* w = field(line, {"bench", "workloads"});
      if (w && w->is_array()) workloads = w->size();
      if (auto hw = number(line, {"aa", "half_width"})) aa = hw;
    } else if (type == "aa") {
      if (auto hw = number(line, {"half_width"})) aa = hw;  // refreshed during the run
    } else if (type == "candidate" && text(line, {"decision"}) == "keep") {
      ++kept;
      auto vb = number(line, {"vs_baseline"});
      if (vb && (!best || *vb > *best)) {
        best = vb;
        auto id = number(line, {"id"});
        best_id = id ? fmt::format(" (#{})", static_cast<long long>(*id)) : "";
      }
    }
  }

  // Two lines, so a long run id does not push the numbers off a 120-column screen.
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
  s += best ? fmt::format("  best {:.3f}x vs baseline{}", *best, best_id) : "  best -";
  s += fmt::format("  {} candidates, {} kept", candidates, kept);
  return s;
}

std::string final_line(const json& f) {
  std::string s = "final:";
  auto x = number(f, {"speedup_vs_baseline"});
  s += x ? fmt::format(" {}", ratio_cell(x, interval(f, {"ci"}))) + " vs baseline" : " -";
  const json* reached = field(f, {"goal_reached"});
  if (reached && reached->is_boolean())
    s += reached->get<bool>() ? ", goal reached" : ", goal not reached";
  std::string stop = text(f, {"stop_reason"});
  if (!stop.empty()) s += "; stopped: " + stop;
  std::string commit = text(f, {"best_commit"});
  if (!commit.empty()) s += "; best commit " + commit.substr(0, 12);
  return s;
}

}  // namespace

std::string render_log_table(const LogContents& log, bool colour) {
  std::vector<Row> rows;
  bool screened_only = false;
  const json* final_event = nullptr;
  for (const json& line : log.lines) {
    std::string type = text(line, {"type"});
    if (type == "candidate") rows.push_back(make_row(line, &screened_only));
    if (type == "final") final_event = &line;
  }

  const Row head{"#", "time", "decision", "speedup (95% CI)", "vs base",
                 "build", "verify", "idea", "reason"};
  auto widest = [&](std::string Row::*cell) {
    size_t w = detail::display_width(head.*cell);
    for (const Row& r : rows) w = std::max(w, detail::display_width(r.*cell));
    return w;
  };
  const size_t w_id = widest(&Row::id), w_fin = widest(&Row::finished),
               w_dec = widest(&Row::decision), w_spd = widest(&Row::speedup),
               w_vb = widest(&Row::vs_base), w_bld = widest(&Row::build),
               w_ver = widest(&Row::verify);
  // The idea and the reason share what is left; when both want more, the reason
  // (why it was kept or thrown away) gets the larger part.
  const size_t fixed = w_id + w_fin + w_dec + w_spd + w_vb + w_bld + w_ver + 6 + 2 * 2;
  const size_t room = std::max(kTableWidth - std::min(fixed, kTableWidth), 2 * kMinTextWidth);
  const size_t idea_need = widest(&Row::idea), reason_need = widest(&Row::reason);
  size_t w_idea = idea_need;
  if (idea_need + reason_need > room)
    w_idea = std::min(idea_need, std::max(room * 2 / 5, room - std::min(reason_need, room)));
  const size_t w_reason = room - w_idea;

  auto render = [&](const Row& r, bool is_head) {
    std::string decision = detail::pad(r.decision, w_dec, Align::Left);
    if (colour && !is_head) {
      if (const char* c = decision_colour(r.decision))
        decision = std::string(c) + decision + "\x1b[0m";
    }
    std::string line = detail::pad(r.id, w_id, Align::Right) + kGap +
                       detail::pad(r.finished, w_fin, Align::Left) + kGap + decision + kGap +
                       detail::pad(r.speedup, w_spd, Align::Left) + kGap +
                       detail::pad(r.vs_base, w_vb, Align::Right) + kGap +
                       detail::pad(r.build, w_bld, Align::Right) + kGap +
                       detail::pad(r.verify, w_ver, Align::Right) + kWideGap +
                       detail::pad(detail::truncate_to_width(r.idea, w_idea), w_idea, Align::Left) +
                       kWideGap + detail::truncate_to_width(r.reason, w_reason);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
  };

  std::string out = summary_line(log, rows.size()) + "\n";
  if (log.torn_tail) out += "(the log's last line was torn by a crash and is not shown)\n";
  if (rows.empty()) {
    out += "no candidates yet\n";
  } else {
    out += render(head, true);
    for (const Row& r : rows) out += render(r, false);
  }
  if (screened_only) out += "~ screened only: quick workloads, few samples\n";
  if (final_event) out += final_line(*final_event) + "\n";
  return out;
}

json render_log_json(const LogContents& log) {
  json out = {{"header", log.header}, {"experiments", json::array()}};
  for (const json& line : log.lines) out["experiments"].push_back(line);
  if (log.torn_tail) out["torn_tail"] = true;
  return out;
}

}  // namespace ar
