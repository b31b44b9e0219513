#pragma once
// The per-workload table printed by `bench`, `run` (baseline and final) and the
// benchmark scripts: medians with spread, TFLOP/s, GB/s and the roofline position.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autoresearch/measure/sample_stats.h"

namespace ar {

// Machine peaks the roofline is drawn against.
struct Roofline {
  double peak_flops = 0;        // FLOP/s
  double peak_bytes_per_s = 0;  // B/s
  std::string source;           // "context/hardware/h200.json" or "measured by the harness"
};

struct WorkloadRow {
  std::string name;
  Summary time_us;                       // of the kernel measured
  std::optional<double> flops, bytes;    // per call
  std::optional<double> other_median_us; // incumbent/baseline, when comparing
  std::optional<double> ratio, ratio_ci_low, ratio_ci_high;
  double sm_mhz = 0;
};

struct RooflinePosition {
  double tflops = 0, gbps = 0;
  double pct_of_roofline = 0;            // attainable time / measured time * 100
  std::string bound;                     // "compute" or "memory"
  double floor_us = 0;                   // the physical floor for this workload
};

RooflinePosition roofline_position(double time_us, double flops, double bytes, const Roofline& r);

std::string render_bench_table(const std::vector<WorkloadRow>& rows, const Roofline& roofline,
                               const std::string& title);
nlohmann::json bench_rows_json(const std::vector<WorkloadRow>& rows, const Roofline& roofline);

}  // namespace ar
