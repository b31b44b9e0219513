#include "calibrate_trials.h"

#include "autoresearch/measure/binomial_interval.h"

namespace ar {

namespace {

// The same slot names as a `bench`: one build of the kernel loaded twice.
constexpr const char* kIncumbent = "a";
constexpr const char* kCandidate = "b";

// Seeds are distinct per measurement so no two trials time the same inputs.
constexpr unsigned long long kTrialStride = 1000003;

std::vector<double> pooled_medians(const MeasureOutcome& r) {
  std::vector<double> out;
  for (const auto& p : r.pairs) {
    std::vector<double> all = p.incumbent_us;
    all.insert(all.end(), p.candidate_us.begin(), p.candidate_us.end());
    out.push_back(summarize(std::move(all)).median);
  }
  return out;
}

double mean_clock(const MeasureOutcome& r) {
  double sum = 0;
  int n = 0;
  for (double mhz : r.mean_sm_mhz)
    if (mhz > 0) {
      sum += mhz;
      ++n;
    }
  return n > 0 ? sum / n : -1;
}

class Calibration {
 public:
  Calibration(HarnessSession& h, const Manifest& m, const RunConfig& cfg, const CalibratePlan& plan,
              const CalibrateObserver& observer)
      : h_(h), m_(m), cfg_(cfg), plan_(plan), observer_(observer) {}

  CalibrateOutcome run() {
    if (!measure_aa(1)) return std::move(out_);
    if (plan_.planted > 0) {
      // A fixed pad from the first A/A median: the planted speedup is a known
      // constant for the whole calibration, whatever the later refreshes say.
      for (double median : out_.aa.front().median_us) out_.pad_us.push_back(plan_.planted * median);
      if (observer_.on_pads) observer_.on_pads(out_.pad_us);
    }
    int measured_at = 0;   // trials done when the A/A noise was last measured
    for (int t = 1; t <= plan_.trials; ++t) {
      if (plan_.aa_refresh > 0 && t - 1 - measured_at >= plan_.aa_refresh) {
        if (!measure_aa(t)) break;
        measured_at = t - 1;
      }
      if (!trial(t)) break;
    }
    return std::move(out_);
  }

 private:
  std::optional<PairPad> pad() const {
    if (out_.pad_us.empty()) return std::nullopt;
    return PairPad{kIncumbent, out_.pad_us};
  }

  // A measurement that did not come back stops the calibration: with the
  // kernel against itself there is no candidate to blame.
  bool ok(const MeasureOutcome& r) {
    out_.gpu_seconds += r.gpu_seconds;
    if (r.status == StepStatus::Ok) return true;
    out_.status = r.status;
    out_.reason = r.reason;
    return false;
  }

  // As `run` does at its start and every aa_refresh candidates: the kernel
  // against its copy, unpadded, without a replay check.
  bool measure_aa(int before_trial) {
    auto r = measure_pair(h_, kIncumbent, kCandidate, plan_.workloads, m_, plan_.sampling,
                          plan_.seed ^ 0xaaaaull ^ (static_cast<unsigned long long>(before_trial) * kTrialStride),
                          "", cfg_);
    if (!ok(r)) return false;
    AaMeasurement aa;
    aa.before_trial = before_trial;
    aa.half_width = aa_half_width(r.comparison);
    aa.speedup = r.comparison.speedup;
    aa.gpu_seconds = r.gpu_seconds;
    aa.median_us = pooled_medians(r);
    half_width_ = aa.half_width;
    out_.aa.push_back(aa);
    if (observer_.on_aa) observer_.on_aa(out_.aa.back());
    return true;
  }

  // One candidate as `run` judges it: the full measurement (with the replay
  // check on the candidate), and the confirming re-run only when it passes.
  bool trial(int t) {
    const unsigned long long seed = plan_.seed + static_cast<unsigned long long>(t) * kTrialStride;
    TrialRecord rec;
    rec.trial = t;
    rec.aa_half_width = half_width_;
    auto full = measure_pair(h_, kIncumbent, kCandidate, plan_.workloads, m_, plan_.sampling, seed ^ 0xf011,
                             kCandidate, cfg_, pad());
    if (!ok(full)) return false;
    rec.full = full.comparison;
    rec.gpu_seconds = full.gpu_seconds;
    rec.mean_sm_mhz = mean_clock(full);
    if (judge_measurement(full.comparison, half_width_, plan_.rule).pass) {
      auto confirm = measure_pair(h_, kIncumbent, kCandidate, plan_.workloads, m_, plan_.sampling,
                                  seed ^ 0xc0f1, kCandidate, cfg_, pad());
      if (!ok(confirm)) return false;
      rec.confirm = confirm.comparison;
      rec.gpu_seconds += confirm.gpu_seconds;
    }
    const Verdict v = judge_keep(rec.full, rec.confirm, half_width_, plan_.rule);
    rec.keep = v.pass;
    rec.reason = v.reason;
    rec.threshold = v.threshold;
    out_.trials.push_back(rec);
    if (observer_.on_trial) observer_.on_trial(out_.trials.back());
    return true;
  }

  HarnessSession& h_;
  const Manifest& m_;
  const RunConfig& cfg_;
  const CalibratePlan& plan_;
  const CalibrateObserver& observer_;
  CalibrateOutcome out_;
  double half_width_ = 0;
};

}  // namespace

CalibrateOutcome run_calibration(HarnessSession& h, const Manifest& m, const RunConfig& cfg,
                                 const CalibratePlan& plan, const CalibrateObserver& observer) {
  return Calibration(h, m, cfg, plan, observer).run();
}

CalibrateSummary summarize_calibration(const CalibrateOutcome& o) {
  CalibrateSummary s;
  s.trials = static_cast<long long>(o.trials.size());
  std::vector<double> speedups, widths, clocks;
  for (const auto& t : o.trials) {
    s.keeps += t.keep ? 1 : 0;
    speedups.push_back(t.full.speedup);
    widths.push_back(t.aa_half_width);
    if (t.mean_sm_mhz > 0) clocks.push_back(t.mean_sm_mhz);
  }
  if (!clocks.empty()) s.median_sm_mhz = summarize(clocks).median;
  s.keep_rate = s.trials > 0 ? static_cast<double>(s.keeps) / static_cast<double>(s.trials) : 0;
  const RateInterval ci = clopper_pearson(s.keeps, s.trials);
  s.rate_low = ci.low;
  s.rate_high = ci.high;
  s.rate_upper_95 = clopper_pearson_upper(s.keeps, s.trials);
  if (!speedups.empty()) s.median_speedup = summarize(speedups).median;
  if (!widths.empty()) s.median_aa_half_width = summarize(widths).median;
  s.gpu_seconds = o.gpu_seconds;
  return s;
}

}  // namespace ar
