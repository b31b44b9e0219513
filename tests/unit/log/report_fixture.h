#pragma once
// A small run's log for the report tests, its lines shaped as the driver
// writes them (compare kernels/sparse_mla/results/sparse_mla-h200d.experiments.jsonl.gz):
// two workloads, one keep, a discard that is faster on one workload, a wrong
// candidate that would be fastest if it counted, a build error, a final line.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autoresearch/log/experiment_log.h"

namespace ar::test {

using nlohmann::json;

inline json report_header() {
  return {{"type", "header"},
          {"version", 1},
          {"run_id", "k-1"},
          {"kernel", "k"},
          {"package", "kernels/k"},
          {"branch", "autoresearch/k-1"},
          {"base_commit", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
          {"started", "2026-11-30T10:00:00Z"},
          {"goal", 2},
          {"agent", {{"name", "llm"}, {"model", "some-model"}}},
          {"device", {{"name", "Test GPU"}}},
          {"keep_rule", {{"min_gain", 0.01}}},
          {"roofline", {{"peak_flops", 1e14}, {"peak_bytes_per_s", 1e12}, {"source", "test.json (datasheet)"}}}};
}

// A measured row as the bench writes it: the candidate's median, its incumbent's, and their ratio.
inline json row(const std::string& name, double median_us, double other_us) {
  return {{"name", name},
          {"median_us", median_us},
          {"other_median_us", other_us},
          {"ratio", other_us / median_us},
          {"ratio_ci", {other_us / median_us * 0.99, other_us / median_us * 1.01}},
          {"flops", 1e9},
          {"bytes", 1e7}};
}

inline std::vector<json> report_lines() {
  return {
      {{"type", "verify_baseline"}, {"time", "2026-11-30T10:00:02Z"}, {"verify", {{"ok", true}, {"seconds", 2.0}}}},
      {{"type", "baseline"},
       {"time", "2026-11-30T10:00:05Z"},
       {"bench",
        {{"workloads",
          {{{"name", "small"}, {"median_us", 100.0}, {"flops", 1e9}, {"bytes", 1e7}},
           {{"name", "big"}, {"median_us", 1000.0}, {"flops", 1e10}, {"bytes", 2e8}}}}}}},
      {{"type", "aa"}, {"after_id", 0}, {"gpu_seconds", 3.0}, {"time", "2026-11-30T10:00:08Z"}},
      {{"type", "candidate"},
       {"id", 1},
       {"started", "2026-11-30T10:00:10Z"},
       {"finished", "2026-11-30T10:01:00Z"},
       {"idea", "TILE 32→64"},
       {"decision", "keep"},
       {"speedup", 1.25},
       {"vs_baseline", 1.25},
       {"vs_baseline_ci", {1.24, 1.26}},
       {"commit", "c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1"},
       {"calls", {{{"seconds", 3.0}, {"tokens_in", 1000}, {"tokens_out", 200}, {"cost_estimated", true}}}},
       {"tokens", {{"in", 1000}, {"out", 200}}},
       {"cost_usd", 0.5},
       {"build", {{"ok", true}, {"seconds", 4.0}, {"scan_seconds", 0.5}}},
       {"verify", {{"ok", true}, {"seconds", 1.0}}},
       {"screen", {{"gpu_seconds", 0.5}, {"workloads", {row("small", 83.0, 100.0)}}}},
       {"bench", {{"gpu_seconds", 2.0}, {"workloads", {row("small", 80.0, 100.0), row("big", 800.0, 1000.0)}}}},
       {"confirm", {{"gpu_seconds", 2.0}}}},
      {{"type", "candidate"},
       {"id", 2},
       {"started", "2026-11-30T10:01:00Z"},
       {"finished", "2026-11-30T10:01:30Z"},
       {"idea", "SPLIT 1→2"},
       {"decision", "discard"},
       {"speedup", 0.95},
       {"calls", {{{"seconds", 2.0}}}},
       {"tokens", {{"in", 500}, {"out", 100}}},
       {"cost_usd", 0.25},
       {"build", {{"ok", true}, {"seconds", 3.0}}},
       {"verify", {{"ok", true}, {"seconds", 1.0}}},
       // 1.1x the incumbent on small (1.375x the start), slower on big.
       {"screen", {{"gpu_seconds", 0.5}, {"workloads", {row("small", 80.0, 88.0), row("big", 900.0, 810.0)}}}}},
      {{"type", "candidate"},
       {"id", 3},
       {"finished", "2026-11-30T10:02:00Z"},
       {"idea", "skip the tail"},
       {"decision", "wrong"},
       {"verify", {{"ok", false}, {"seconds", 1.0}}},
       {"screen", {{"workloads", {row("small", 10.0, 80.0)}}}}},
      {{"type", "candidate"},
       {"id", 4},
       {"finished", "2026-11-30T10:02:30Z"},
       {"idea", "typo"},
       {"decision", "build_error"},
       {"build", {{"ok", false}, {"seconds", 1.5}}}},
      {{"type", "final"},
       {"time", "2026-11-30T10:03:00Z"},
       {"keeps", 1},
       {"candidates", 4},
       {"best_candidate", 1},
       {"best_commit", "c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1"},
       {"speedup_vs_baseline", 1.26},
       {"ci", {1.25, 1.27}},
       {"remeasured", true},
       {"goal", 2},
       {"goal_reached", false},
       {"stop_reason", "plateau: 3 candidates without a keep"},
       {"session", {{"seconds", 180.0}}},
       {"workloads",
        {{{"workload", "small"},
          {"incumbent", {{"median", 100.0}}},
          {"candidate", {{"median", 80.0}}},
          {"ratio", 1.25},
          {"ci_low", 1.24},
          {"ci_high", 1.26}},
         {{"workload", "big"},
          {"incumbent", {{"median", 1000.0}}},
          {"candidate", {{"median", 790.0}}},
          {"ratio", 1.27},
          {"ci_low", 1.26},
          {"ci_high", 1.28}}}}}};
}

inline LogContents report_log() { return LogContents{report_header(), report_lines(), false}; }

// The same log without its final line: a run still going.
inline LogContents report_log_in_progress() {
  LogContents log = report_log();
  log.lines.pop_back();
  return log;
}

}  // namespace ar::test
