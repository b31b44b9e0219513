#pragma once
// The procedure of `autoresearch calibrate` (SPEC §8): the keep rule applied to
// a kernel against a second copy of itself, trial after trial, exactly as `run`
// applies it to a candidate: the A/A noise measured first and refreshed every
// aa_refresh trials, then per trial a full interleaved measurement and, when
// that passes, the confirming re-run, judged by judge_keep. With planted = F,
// slot "a" (the incumbent) carries a timing pad of F x its A/A median per
// workload, so slot "b" (the candidate) is truly (1 + F) times faster. On CUDA
// the candidate then also carries the pad's zero-cycle kernel node (PROTOCOL.md),
// so its time is a little above the A/A median and the planted speedup a little
// below 1 + F: an error on the side of understating the rule's power.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "autoresearch/core/config.h"
#include "autoresearch/core/manifest.h"
#include "autoresearch/decide/keep_rule.h"
#include "autoresearch/loop/evaluation.h"
#include "autoresearch/measure/harness.h"
#include "autoresearch/measure/sample_stats.h"

namespace ar {

struct CalibratePlan {
  std::vector<Workload> workloads;
  int trials = 300;
  double planted = 0;             // 0: A/A; 0.02: the candidate is truly 2% faster
  int aa_refresh = 25;            // re-measure the A/A noise every N trials (0: never)
  Sampling sampling;
  KeepRuleConfig rule;
  unsigned long long seed = 0;
};

struct AaMeasurement {
  int before_trial = 1;           // 1-based: measured just before this trial
  double half_width = 0;
  double speedup = 1;
  double gpu_seconds = 0;
  std::vector<double> median_us;  // per workload, both slots' samples pooled
};

struct TrialRecord {
  int trial = 0;                  // 1-based
  bool keep = false;
  std::string reason;
  double threshold = 1;           // the speedup the rule required
  double aa_half_width = 0;       // the one it was judged with
  Comparison full;
  std::optional<Comparison> confirm;   // only when the full measurement passed (as in `run`)
  double gpu_seconds = 0;
  // Of the full measurement, over its workloads; -1 when unknown (CPU). The
  // CUDA pad spins a cycle count set for the default clock, so a clock below
  // it lengthens the pad: this says how far the planted speedup can be off.
  double mean_sm_mhz = -1;
};

struct CalibrateOutcome {
  std::vector<double> pad_us;     // per workload; empty for A/A
  std::vector<AaMeasurement> aa;
  std::vector<TrialRecord> trials;
  double gpu_seconds = 0;
  StepStatus status = StepStatus::Ok;  // not Ok: stopped early, for `reason`
  std::string reason;
};

// Called as results arrive, so a long calibration prints as it goes.
struct CalibrateObserver {
  std::function<void(const AaMeasurement&)> on_aa;
  std::function<void(const std::vector<double>& pad_us)> on_pads;   // planted > 0, after the first A/A
  std::function<void(const TrialRecord&)> on_trial;
};

// Slots "a" and "b" must hold the same kernel. Stops at the first measurement
// that fails (the outcome says why and keeps the trials done so far).
CalibrateOutcome run_calibration(HarnessSession& h, const Manifest& m, const RunConfig& cfg,
                                 const CalibratePlan& plan, const CalibrateObserver& observer);

// The figures SPEC §8 asks for, from the trials done.
struct CalibrateSummary {
  long long trials = 0, keeps = 0;
  double keep_rate = 0;
  double rate_low = 0, rate_high = 1;   // exact (Clopper–Pearson) 95%, two-sided
  double rate_upper_95 = 1;             // exact 95% one-sided upper bound
  double median_speedup = 1;            // of the full measurements
  double median_aa_half_width = 0;      // that the trials were judged with
  double median_sm_mhz = -1;            // of the trials' mean SM clocks; -1 when unknown
  double gpu_seconds = 0;
};

CalibrateSummary summarize_calibration(const CalibrateOutcome& o);

}  // namespace ar
