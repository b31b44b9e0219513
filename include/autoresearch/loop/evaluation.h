#pragma once
// The verify and benchmark steps over many workloads, shared by `run`, `bench`
// and `verify`: they turn harness replies into outcomes the loop can decide on.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autoresearch/core/config.h"
#include "autoresearch/core/decision.h"
#include "autoresearch/core/manifest.h"
#include "autoresearch/log/bench_table.h"
#include "autoresearch/measure/harness.h"
#include "autoresearch/measure/sample_stats.h"

namespace ar {

// How a step ended. Anything but Ok/Wrong/Guard leaves the harness to be
// recovered. Guard: a structural guard of the harness caught the kernel
// (PROTOCOL.md "guard": a timed replay differs from the verified output,
// module state changed, the reference's buffers changed, inputs changed); the
// reason reads "guard (<rule>): <message>".
enum class StepStatus { Ok, Wrong, Crash, Timeout, Cancelled, Error, Guard };
const char* step_status_name(StepStatus s);

// What a failed step means for the candidate. The harness's load, launch and
// capture errors are the kernel's doing (an artifact the harness rejects, a
// plan the device cannot run, a launch that cannot be captured), so they count
// against it; any other Error is the harness's or the machine's (Decision::Error).
Decision decision_for_failure(StepStatus s, const std::string& reason);

struct VerifyOutcome {
  StepStatus status = StepStatus::Ok;
  std::string reason;                 // first failure, one sentence
  std::string failed_workload;
  double seconds = 0;
  nlohmann::json workloads = nlohmann::json::array();   // per workload: name, pass, worst errors, seconds
};

// The harness's view of a workload: {"name", "params"}.
nlohmann::json workload_request(const Workload& w);
nlohmann::json tolerances_json(const Manifest& m);

// Verifies `slot` on each workload in order; stops at the first failure.
VerifyOutcome verify_workloads(HarnessSession& h, const std::string& slot,
                               const std::vector<Workload>& workloads, const Manifest& m,
                               unsigned long long seed, const RunConfig& cfg);

struct MeasureOutcome {
  StepStatus status = StepStatus::Ok;
  std::string reason;
  std::string failed_workload;
  std::vector<PairedSamples> pairs;   // incumbent = first slot, candidate = second
  Comparison comparison;
  double gpu_seconds = 0;             // wall time the harness spent sampling
  nlohmann::json extras = nlohmann::json::array();   // per workload: rounds, dropped, clocks, replay check
  std::vector<double> mean_sm_mhz;    // per workload, -1 when unknown
};

// A planted delay per workload for measure_pair (`calibrate` only): slot
// `slot` is padded by us[i] microseconds on workloads[i].
struct PairPad {
  std::string slot;
  std::vector<double> us;
};

// Times two slots interleaved on each workload. With `replay_slot`, every timed
// replay of that slot is checked (fingerprinted against its verified output, or
// checked against the reference when the manifest declares the kernel
// nondeterministic), and verified again on re-randomised inputs inside and
// after the measurement. With `pad`, the padded slot is slowed by a known
// amount (TimingPad).
MeasureOutcome measure_pair(HarnessSession& h, const std::string& a, const std::string& b,
                            const std::vector<Workload>& workloads, const Manifest& m,
                            const Sampling& s, unsigned long long seed, const std::string& replay_slot,
                            const RunConfig& cfg, const std::optional<PairPad>& pad = std::nullopt);

Sampling full_sampling(const RunConfig& c);
Sampling screen_sampling(const RunConfig& c);

// FLOPs and bytes of a workload from the manifest's formulas.
std::optional<double> workload_flops(const Manifest& m, const Workload& w);
std::optional<double> workload_bytes(const Manifest& m, const Workload& w);

// Rows for the bench table: the second slot's times, compared with the first.
std::vector<WorkloadRow> table_rows(const Manifest& m, const std::vector<Workload>& workloads,
                                    const MeasureOutcome& r, bool compare);
// Peaks from context/hardware/*.json for the device, else the harness's own measurement.
Roofline roofline_for(const std::filesystem::path& home, const nlohmann::json& device);

// A candidate time below the physical floor is a measurement fault, not a win.
// Returns the reason, or nullopt when every workload is above its floor.
std::optional<std::string> below_physical_floor(const Manifest& m, const std::vector<Workload>& workloads,
                                                const MeasureOutcome& r, const Roofline& roof);

// Hidden workloads for one full verification, drawn from the manifest's ranges.
std::vector<Workload> draw_hidden_workloads(const Manifest& m, int count, unsigned long long seed);

}  // namespace ar
