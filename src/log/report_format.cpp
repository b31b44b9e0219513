#include "report_format.h"

#include <cmath>

#include <fmt/format.h>

namespace ar::report {

std::string micros(std::optional<double> us) {
  if (!us) return "-";
  // Enough digits to see a 0.5% change at every magnitude (as the bench table).
  if (*us < 10) return fmt::format("{:.3f}", *us);
  if (*us < 1000) return fmt::format("{:.2f}", *us);
  return fmt::format("{:.1f}", *us);
}

std::string ratio(std::optional<double> x) { return x ? fmt::format("{:.3f}x", *x) : "-"; }

std::string ratio_ci(const std::optional<std::array<double, 2>>& ci) {
  return ci ? fmt::format("{:.3f}–{:.3f}", (*ci)[0], (*ci)[1]) : "";
}

std::string rate(std::optional<double> v) {
  if (!v) return "-";
  // A CPU package's TFLOP/s are thousandths: three significant digits, not "0.00".
  if (*v < 1) return fmt::format("{:.3g}", *v);
  return *v < 10 ? fmt::format("{:.2f}", *v) : fmt::format("{:.1f}", *v);
}

std::string percent(double share) { return fmt::format("{:.1f}%", share * 100); }

std::string duration(double seconds) {
  if (!(seconds >= 0)) return "-";
  if (seconds < 60) return fmt::format("{:.1f}s", seconds);
  const long long s = std::llround(seconds);
  if (s < 3600) return fmt::format("{}m {:02}s", s / 60, s % 60);
  return fmt::format("{}h {:02}m", s / 3600, (s % 3600) / 60);
}

std::string roofline_cell(const std::optional<RooflinePosition>& p) {
  if (!p || p->bound == "unknown") return "-";
  // Faster than the roofline allows is a broken measurement, never a win.
  return fmt::format("{:.1f}% {}{}", p->pct_of_roofline, p->bound, p->pct_of_roofline > 100 ? " !" : "");
}

std::string start_to_best(const std::string& start, const std::string& best) {
  if (start == "-" && best == "-") return "-";
  return start + " → " + best;
}

std::string result_sentence(const Report& r) {
  if (!r.result.speedup) return "no result yet (nothing measured against the start)";
  std::string s = ratio(r.result.speedup) + " vs the start";
  if (r.result.ci) s += " [95% CI " + ratio_ci(r.result.ci) + "]";
  if (!r.result.measured.empty()) s += " (" + r.result.measured + ")";
  return s;
}

std::string ending_sentence(const Report& r) {
  std::string s = r.goal > 0 ? fmt::format("goal {:.2f}x {}", r.goal, r.goal_reached ? "reached" : "not reached") : "";
  if (r.finished) {
    if (!r.stop_reason.empty()) s += (s.empty() ? "" : "; ") + std::string("stopped: ") + r.stop_reason;
  } else {
    s += (s.empty() ? "" : "; ") +
         std::string(r.running ? "still running" : "no final line (still running, or killed)");
  }
  return s;
}

std::string keep_sentence(const Report& r) {
  const size_t judged = r.steps.size();
  std::string s = fmt::format("{} candidate{}, {} kept", judged, judged == 1 ? "" : "s", r.keeps);
  if (judged > 0) s += fmt::format(" ({})", percent(static_cast<double>(r.keeps) / static_cast<double>(judged)));
  return s;
}

namespace {

// 1234567 -> "1,234,567": a night's token counts run to millions.
std::string thousands(long long n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (n < 0 ? "-" : "") + out;
}

}  // namespace

std::string cost_sentence(const Report& r) {
  if (r.tokens_in == 0 && r.tokens_out == 0 && r.cost_usd == 0) return "no tokens spent, no cost";
  return fmt::format("tokens {} in, {} out; cost ${:.2f}{}", thousands(r.tokens_in), thousands(r.tokens_out), r.cost_usd,
                     r.cost_estimated ? " (estimated: a model priced at the table's highest rates)" : "");
}

std::string winner_name(const ReportWinner& w) {
  return w.candidate > 0 ? fmt::format("candidate #{}", w.candidate) : std::string("the start");
}

std::string winner_gain(const ReportWinner& w) {
  if (!w.speedup || !w.best || *w.best <= 0) return "-";
  return ratio(*w.speedup / *w.best);
}

std::string winners_sentence(const Report& r) {
  int beaten = 0;
  double most = 1;
  std::string where;
  for (const ReportWinner& w : r.winners) {
    if (!w.speedup || !w.best || *w.best <= 0 || w.candidate == r.best_candidate) continue;
    if (*w.speedup <= *w.best) continue;
    ++beaten;
    if (*w.speedup / *w.best > most) {
      most = *w.speedup / *w.best;
      where = w.workload;
    }
  }
  if (beaten == 0)
    return fmt::format("on none of the {} workloads did another verified candidate beat the best", r.winners.size());
  return fmt::format("on {} of {} workloads another verified candidate beat the best (up to {} its speed, on {})",
                     beaten, r.winners.size(), ratio(most), where);
}

std::string missing_phases_sentence(const Report& r) {
  std::string s;
  for (const auto& p : r.phases_missing) s += (s.empty() ? "" : ", ") + phase_label(p);
  return s.empty() ? s : "no time in this log for: " + s + " (its lines do not record it, or no candidate got that far)";
}

}  // namespace ar::report
