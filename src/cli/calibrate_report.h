#pragma once
// What `autoresearch calibrate` prints: one line per trial while it runs, and
// at the end a summary (text) or the summary with every trial (JSON).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibrate_trials.h"

namespace ar {

// The run's facts the report states next to the numbers.
struct CalibrateContext {
  std::string kernel;
  nlohmann::json tunables;
  nlohmann::json device;          // the harness's hello
  std::vector<Workload> workloads;
  const CalibratePlan* plan = nullptr;
  double wall_seconds = 0;
};

std::string calibrate_title(const CalibrateContext& c);
std::string aa_line(const AaMeasurement& aa, const std::vector<Workload>& workloads);
std::string pad_line(double pad_us, const Workload& w, double planted);
std::string trial_line(const TrialRecord& t, int total, long long keeps_so_far);

std::string calibrate_text(const CalibrateContext& c, const CalibrateOutcome& o, const CalibrateSummary& s);
nlohmann::json calibrate_json(const CalibrateContext& c, const CalibrateOutcome& o, const CalibrateSummary& s);

}  // namespace ar
