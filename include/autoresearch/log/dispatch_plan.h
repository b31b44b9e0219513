#pragma once
// Which variants a per-workload dispatch holds, from a run's log: the run's
// best serves every workload unless another verified candidate won it (by more
// than the keep rule's min-gain, chained from interleaved ratios: see
// report_winners.cpp); the candidates that won the most are the other variants.
#include <map>
#include <string>
#include <vector>

#include "autoresearch/log/experiment_log.h"
#include "autoresearch/log/report_model.h"

namespace ar {

struct DispatchPlan {
  int best_candidate = 0;                  // the run's best (0: nothing was kept, the start)
  std::vector<int> candidates;             // variant k is candidates[k-1]; candidates[0] is the best
  std::map<std::string, int> variant_of;   // workload some candidate was measured on -> its variant (1-based)
  std::map<std::string, double> gain;      // measured workload -> its variant's expected gain over the best
  std::vector<ReportWinner> winners;       // as `report` shows them
  std::vector<std::string> left_out;       // winners not taken (past max_variants), one sentence each
};

// max_variants >= 1. A plan with one variant means nothing beat the best anywhere.
DispatchPlan plan_dispatch(const LogContents& log, int max_variants);

// The candidate line of `id`, or nullptr.
const nlohmann::json* candidate_line(const LogContents& log, int id);

}  // namespace ar
