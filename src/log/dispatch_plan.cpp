#include "autoresearch/log/dispatch_plan.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "json_fields.h"
#include "report_winners.h"

namespace ar {

using detail::number;
using detail::text;

const nlohmann::json* candidate_line(const LogContents& log, int id) {
  for (const auto& line : log.lines)
    if (text(line, {"type"}) == "candidate" && number(line, {"id"}).value_or(-1) == id) return &line;
  return nullptr;
}

namespace {

// The last keep is the best (a keep is always faster than the incumbent it replaced).
int last_keep(const LogContents& log) {
  int best = 0;
  for (const auto& line : log.lines)
    if (text(line, {"type"}) == "candidate" && text(line, {"decision"}) == "keep")
      best = static_cast<int>(number(line, {"id"}).value_or(0));
  return best;
}

}  // namespace

DispatchPlan plan_dispatch(const LogContents& log, int max_variants) {
  DispatchPlan plan;
  plan.best_candidate = last_keep(log);
  plan.winners = detail::per_workload_winners(log);
  plan.candidates = {plan.best_candidate};

  // Each other winner's score: the log of its gains over the best, summed over
  // the workloads it wins, so one that wins several workloads by a little can
  // outrank one that wins a single workload by a lot only when it should.
  std::map<int, double> score;
  for (const ReportWinner& w : plan.winners) {
    if (w.candidate == plan.best_candidate || !w.speedup || !w.best || *w.best <= 0) continue;
    score[w.candidate] += std::log(*w.speedup / *w.best);
  }
  std::vector<std::pair<double, int>> ranked;
  for (const auto& [id, s] : score) ranked.push_back({s, id});
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  for (const auto& [s, id] : ranked) {
    if (static_cast<int>(plan.candidates.size()) < std::max(1, max_variants)) plan.candidates.push_back(id);
    else plan.left_out.push_back(fmt::format("candidate #{} (expected {:.3f}x over the best where it won) was left "
                                             "out: --max-variants {}",
                                             id, std::exp(s), max_variants));
  }
  for (const ReportWinner& w : plan.winners) {
    if (w.rivals == 0) continue;   // no candidate was measured there: not a known shape
    auto it = std::find(plan.candidates.begin(), plan.candidates.end(), w.candidate);
    const bool other = it != plan.candidates.end() && w.candidate != plan.best_candidate;
    plan.variant_of[w.workload] = other ? static_cast<int>(it - plan.candidates.begin()) + 1 : 1;
    plan.gain[w.workload] = other && w.speedup && w.best ? *w.speedup / *w.best : 1.0;
  }
  return plan;
}

}  // namespace ar
