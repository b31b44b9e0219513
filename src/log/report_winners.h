#pragma once
// The per-workload winners of a run: for each workload, the verified candidate
// that was fastest on it (what a per-workload dispatch would pick).
#include <vector>

#include "autoresearch/log/experiment_log.h"
#include "autoresearch/log/report_model.h"

namespace ar::detail {

// Empty when no candidate line carries per-workload results.
std::vector<ReportWinner> per_workload_winners(const LogContents& log);

}  // namespace ar::detail
