#include "autoresearch/loop/evaluation.h"

#include <cmath>

#include <fmt/format.h>

#include "autoresearch/core/hardware.h"
#include "autoresearch/decide/focus.h"

namespace ar {

const char* step_status_name(StepStatus s) {
  switch (s) {
    case StepStatus::Ok: return "ok";
    case StepStatus::Wrong: return "wrong";
    case StepStatus::Crash: return "crash";
    case StepStatus::Timeout: return "timeout";
    case StepStatus::Cancelled: return "cancelled";
    case StepStatus::Error: return "error";
    case StepStatus::Guard: return "guard";
  }
  return "?";
}

Decision decision_for_failure(StepStatus s, const std::string& reason) {
  switch (s) {
    case StepStatus::Wrong: return Decision::Wrong;
    case StepStatus::Crash: return Decision::Crash;
    case StepStatus::Timeout: return Decision::Timeout;
    case StepStatus::Cancelled: return Decision::Interrupted;
    case StepStatus::Guard: return Decision::RejectedByGuard;
    case StepStatus::Ok: return Decision::Error;
    case StepStatus::Error:
      if (reason.find("capture_error") != std::string::npos) return Decision::RejectedByGuard;
      if (reason.find("load_error") != std::string::npos) return Decision::BuildError;
      if (reason.find("launch_error") != std::string::npos) return Decision::Crash;
      return Decision::Error;
  }
  return Decision::Error;
}

nlohmann::json workload_request(const Workload& w) { return {{"name", w.name}, {"params", w.params}}; }

nlohmann::json tolerances_json(const Manifest& m) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& t : m.tolerances) {
    nlohmann::json j = {{"output", t.output}, {"abs", t.abs}, {"rel", t.rel}};
    j["cosine"] = t.cosine ? *t.cosine : -1.0;
    out.push_back(j);
  }
  return out;
}

static StepStatus status_of(const HarnessReply& r) {
  switch (r.status) {
    case HarnessReply::Status::Ok: return StepStatus::Ok;
    case HarnessReply::Status::Crashed: return StepStatus::Crash;
    case HarnessReply::Status::TimedOut: return StepStatus::Timeout;
    case HarnessReply::Status::Cancelled: return StepStatus::Cancelled;
    case HarnessReply::Status::Error:
      // A sticky device fault during the candidate's run is the candidate's crash.
      if (r.kind() == "fault") return StepStatus::Crash;
      return r.kind() == "guard" ? StepStatus::Guard : StepStatus::Error;
  }
  return StepStatus::Error;
}

// What a failed reply says, for the reason: a guard names its rule.
static std::string failure_text(const HarnessReply& r) {
  if (r.status == HarnessReply::Status::Error && r.kind() == "guard")
    return fmt::format("guard ({}): {}", r.body.value("rule", "?"), r.body.value("error", "(no message)"));
  return r.message;
}

// "guard (timed-replay) on b1_8k: ..." / "crash on b1_8k: ...".
static std::string step_failure(StepStatus s, const HarnessReply& r, const std::string& where) {
  if (s == StepStatus::Guard) {
    std::string text = failure_text(r);
    const auto colon = text.find("): ");
    return text.substr(0, colon + 1) + " " + where + text.substr(colon + 1);
  }
  return fmt::format("{} {}: {}", step_status_name(s), where, r.message);
}

// The worst error per output over every distribution, for the log.
static nlohmann::json worst_errors(const nlohmann::json& reply) {
  nlohmann::json worst = nlohmann::json::object();
  for (const auto& d : reply.value("distributions", nlohmann::json::array())) {
    for (const auto& o : d.value("outputs", nlohmann::json::array())) {
      std::string name = o.value("output", "?");
      auto& w = worst[name];
      if (w.is_null()) w = {{"max_abs_err", 0.0}, {"max_rel_err", 0.0}, {"cosine_diff", 0.0}};
      for (const char* k : {"max_abs_err", "max_rel_err", "cosine_diff"})
        if (o.contains(k) && o[k].is_number()) w[k] = std::max(w[k].get<double>(), o[k].get<double>());
    }
  }
  return worst;
}

VerifyOutcome verify_workloads(HarnessSession& h, const std::string& slot,
                               const std::vector<Workload>& workloads, const Manifest& m,
                               unsigned long long seed, const RunConfig& cfg) {
  VerifyOutcome out;
  auto tol = tolerances_json(m);
  auto timeout = std::chrono::milliseconds(static_cast<long long>(cfg.verify_timeout_s * 1000));
  for (size_t i = 0; i < workloads.size(); ++i) {
    const auto& w = workloads[i];
    auto r = h.verify(slot, workload_request(w), seed + i * 7919, tol, m.deterministic, timeout);
    nlohmann::json rec = {{"name", w.hidden ? "hidden" : w.name}};
    if (w.hidden) rec["params"] = w.params;
    out.status = status_of(r);
    if (out.status != StepStatus::Ok) {
      rec["pass"] = false;
      rec["error"] = failure_text(r);
      if (out.status == StepStatus::Guard) rec["guard"] = r.body.value("rule", "?");
      out.workloads.push_back(rec);
      out.failed_workload = w.name;
      out.reason = step_failure(out.status, r, "on " + w.name);
      return out;
    }
    double secs = r.body.value("seconds", 0.0);
    out.seconds += secs;
    bool pass = r.body.value("pass", false);
    rec["pass"] = pass;
    rec["seconds"] = secs;
    if (r.body.contains("timing")) rec["timing"] = r.body["timing"];   // where the verification's time went
    rec["worst"] = worst_errors(r.body);
    if (!pass) rec["reason"] = r.body.value("reason", "");
    out.workloads.push_back(rec);
    if (!pass) {
      out.status = StepStatus::Wrong;
      out.failed_workload = w.name;
      out.reason = fmt::format("wrong on {}: {}", w.name, r.body.value("reason", "outputs differ from the reference"));
      return out;
    }
  }
  return out;
}

Sampling full_sampling(const RunConfig& c) {
  Sampling s;
  s.min_samples = c.min_samples;
  s.min_seconds = c.min_seconds;
  s.max_seconds = c.max_seconds;
  s.target_rel_ci = c.target_rel_ci;
  s.cold = c.cold;
  return s;
}

Sampling screen_sampling(const RunConfig& c) {
  Sampling s = full_sampling(c);
  s.min_samples = c.screen_min_samples;
  s.min_seconds = c.screen_min_seconds;
  s.max_seconds = c.screen_max_seconds;
  return s;
}

static std::vector<double> numbers(const nlohmann::json& j) {
  std::vector<double> v;
  if (j.is_array())
    for (const auto& x : j)
      if (x.is_number()) v.push_back(x.get<double>());
  return v;
}

MeasureOutcome measure_pair(HarnessSession& h, const std::string& a, const std::string& b,
                            const std::vector<Workload>& workloads, const Manifest& m, const Sampling& s,
                            unsigned long long seed, const std::string& replay_slot, const RunConfig& cfg,
                            const std::optional<PairPad>& pad) {
  MeasureOutcome out;
  auto timeout = std::chrono::milliseconds(static_cast<long long>((s.max_seconds * 1.5 + cfg.bench_timeout_s) * 1000));
  nlohmann::json replay = nullptr;
  if (!replay_slot.empty()) replay = {{"check_slots", {replay_slot}}, {"tolerances", tolerances_json(m)}};
  Sampling sampling = s;
  sampling.deterministic = m.deterministic;   // how the timed replays are checked
  for (size_t i = 0; i < workloads.size(); ++i) {
    const auto& w = workloads[i];
    std::optional<TimingPad> timing_pad;
    if (pad && i < pad->us.size()) timing_pad = TimingPad{pad->slot, pad->us[i]};
    auto r = h.bench({a, b}, workload_request(w), seed + i * 104729, sampling, replay, timeout, timing_pad);
    out.status = status_of(r);
    if (out.status != StepStatus::Ok) {
      out.failed_workload = w.name;
      out.reason = step_failure(out.status, r, "while measuring " + w.name);
      return out;
    }
    // A wrong timed replay ends the bench early, often before three rounds: judge it first.
    if (r.body.contains("replay_check") && r.body["replay_check"].is_object()) {
      const auto& rc = r.body["replay_check"];
      if (!rc.value("pass", false)) {
        out.extras.push_back({{"workload", w.name},
                              {"rounds", r.body.value("rounds", 0)},
                              {"replay_check", {{"pass", false}, {"reason", rc.value("reason", "")}}}});
        out.status = StepStatus::Wrong;
        out.failed_workload = w.name;
        out.reason = fmt::format("a timed replay on {} was wrong: {}", w.name,
                                 rc.value("reason", "outputs differ from the reference"));
        return out;
      }
    }
    out.gpu_seconds += r.body.value("seconds", 0.0);
    PairedSamples p;
    p.workload = w.name;
    const auto& samples = r.body.value("samples", nlohmann::json::object());
    p.incumbent_us = numbers(samples.value(a, nlohmann::json::array()));
    p.candidate_us = numbers(samples.value(b, nlohmann::json::array()));
    if (p.incumbent_us.size() != p.candidate_us.size() || p.incumbent_us.size() < 3) {
      out.status = StepStatus::Error;
      out.failed_workload = w.name;
      out.reason = fmt::format("the harness returned {} and {} samples for {} (need ≥3 aligned rounds; "
                               "were most rounds dropped for a low clock?)",
                               p.incumbent_us.size(), p.candidate_us.size(), w.name);
      return out;
    }
    nlohmann::json extra = {{"workload", w.name},
                            {"rounds", r.body.value("rounds", 0)},
                            {"dropped_rounds", r.body.value("dropped_rounds", 0)},
                            {"rotations", r.body.value("rotations", 0)},
                            {"seconds", r.body.value("seconds", 0.0)}};
    if (r.body.contains("clock")) extra["clock"] = r.body["clock"];
    if (r.body.contains("temperature_c")) extra["temperature_c"] = r.body["temperature_c"];
    double mhz = -1;
    if (r.body.contains("clock") && r.body["clock"].is_object())
      mhz = r.body["clock"].value("mean_sm_mhz", -1.0);
    out.mean_sm_mhz.push_back(mhz);
    if (r.body.contains("replay_check") && r.body["replay_check"].is_object()) {
      const auto& rc = r.body["replay_check"];
      extra["replay_check"] = {{"pass", true},
                               {"round", rc.value("round", -1)},
                               {"fingerprinted_replays", rc.value("fingerprinted_replays", 0)},
                               {"tolerance_checks", rc.value("tolerance_checks", 0)}};
    }
    out.extras.push_back(extra);
    out.pairs.push_back(std::move(p));
  }
  // A run aimed at some workloads (--focus) judges its geomean on those measured here (the A/A noise,
  // the full measurement and the confirmation alike); the quick screen, where none of them is quick,
  // on all of its own.
  std::vector<std::string> measured;
  for (const PairedSamples& p : out.pairs) measured.push_back(p.workload);
  out.comparison = compare(out.pairs, focus_names(cfg.focus, measured));
  return out;
}

std::optional<double> workload_flops(const Manifest& m, const Workload& w) {
  if (!m.flops) return std::nullopt;
  std::string err;
  return m.flops->evaluate(numeric_params(w.params), &err);
}

std::optional<double> workload_bytes(const Manifest& m, const Workload& w) {
  if (!m.bytes) return std::nullopt;
  std::string err;
  return m.bytes->evaluate(numeric_params(w.params), &err);
}

std::vector<WorkloadRow> table_rows(const Manifest& m, const std::vector<Workload>& workloads,
                                    const MeasureOutcome& r, bool compare_slots) {
  std::vector<WorkloadRow> rows;
  for (size_t i = 0; i < r.pairs.size() && i < workloads.size(); ++i) {
    WorkloadRow row;
    row.name = workloads[i].name;
    row.time_us = summarize(r.pairs[i].candidate_us);
    row.flops = workload_flops(m, workloads[i]);
    row.bytes = workload_bytes(m, workloads[i]);
    if (i < r.mean_sm_mhz.size()) row.sm_mhz = r.mean_sm_mhz[i];
    if (compare_slots && i < r.comparison.workloads.size()) {
      const auto& c = r.comparison.workloads[i];
      row.other_median_us = c.incumbent.median;
      row.ratio = c.ratio;
      row.ratio_ci_low = c.ratio_ci_low;
      row.ratio_ci_high = c.ratio_ci_high;
    }
    rows.push_back(row);
  }
  return rows;
}

Roofline roofline_for(const std::filesystem::path& home, const nlohmann::json& device) {
  Roofline r;
  std::string name = device.value("name", "");
  if (auto hw = find_hardware(home / "context", name)) {
    r.peak_flops = hw->peak_flops;
    r.peak_bytes_per_s = hw->peak_bytes_per_s;
    r.source = hw->json_file.filename().string() + " (datasheet)";
    return r;
  }
  r.peak_flops = device.value("peak_flops", 0.0);
  r.peak_bytes_per_s = device.value("peak_bytes_per_s", 0.0);
  r.source = "measured by the harness on " + (name.empty() ? std::string("this device") : name);
  return r;
}

std::optional<std::string> below_physical_floor(const Manifest& m, const std::vector<Workload>& workloads,
                                                const MeasureOutcome& r, const Roofline& roof) {
  // Datasheet peaks are hard limits; peaks the harness measured itself are
  // only what one simple loop reached, so they get a wide margin.
  bool datasheet = roof.source.find("datasheet") != std::string::npos;
  double margin = datasheet ? 0.9 : 0.25;
  for (size_t i = 0; i < r.pairs.size() && i < workloads.size(); ++i) {
    auto pos_flops = workload_flops(m, workloads[i]).value_or(0);
    auto pos_bytes = workload_bytes(m, workloads[i]).value_or(0);
    double floor_s = 0;
    if (roof.peak_flops > 0) floor_s = std::max(floor_s, pos_flops / roof.peak_flops);
    if (roof.peak_bytes_per_s > 0) floor_s = std::max(floor_s, pos_bytes / roof.peak_bytes_per_s);
    if (floor_s <= 0) continue;
    double median_us = summarize(r.pairs[i].candidate_us).median;
    if (median_us * 1e-6 < margin * floor_s)
      return fmt::format("{}: {:.2f} µs is below the physical floor of {:.2f} µs ({}) — a measurement "
                         "fault or skipped work, not a speedup",
                         workloads[i].name, median_us, floor_s * 1e6, roof.source);
  }
  return std::nullopt;
}

}  // namespace ar
