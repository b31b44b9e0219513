#pragma once
// The bench procedure (PROTOCOL.md "bench"): rotated inputs, warm-up, then
// interleaved rounds (A B, B A, ...) on the same rotation until the stop rule
// holds. With a replay_check, the timed replays of the checked slots are
// checked throughout (replay_guard.h) and verification runs again after the
// timing on re-randomised inputs.
#include <functional>
#include <optional>

#include "common/device.h"
#include "common/request.h"
#include "common/stop_rule.h"

namespace ar::harness {

// "replay_check": {"check_slots": [...], "tolerances": [...], "verified_rotations": N}.
// "slot": S (protocol 1's single checked slot) still reads as check_slots [S];
// with neither, every slot of the bench is checked.
struct ReplayCheckRequest {
  std::vector<std::string> slots;   // the checked slots, in the bench's order
  std::vector<Tolerance> tolerances;
  int verified_rotations = 8;       // eager runs tolerance-checked per slot (see replay_guard.h)
};

// "pad": {"slot": S, "us": X}: every timed sample of S carries X µs of extra
// busy device time, so the other slots are truly faster by a known amount (a
// benchmarking aid for measuring the keep rule's power; see PROTOCOL.md).
struct PadRequest {
  std::string slot;
  double us = 0;
};

struct BenchRequest {
  std::vector<std::string> slots;
  WorkloadRef workload;
  uint64_t seed = 0;
  bool cold = true;
  bool deterministic = true;   // the timed replays must reproduce the verified output bit for bit
  StopRule stop;
  std::optional<ReplayCheckRequest> replay_check;
  std::optional<PadRequest> pad;
};

// The pad bind() gets for a slot of this request: kNoPad without a "pad", the
// pad for its slot, and 0 for the others (same fixed cost, no spin).
double pad_for(const BenchRequest& request, const std::string& slot);

BenchRequest parse_bench_request(const json& request);

// Rotations so that all of them together cover at least twice the cache:
// clamp(ceil(2 * cache_bytes / rotation_bytes), 2, 64).
int rotation_count(size_t cache_bytes, size_t rotation_bytes);

// `state_check` (optional) is called between rounds, now and then, to prove
// that no module variable changed (StateWatch::require_unchanged); it throws.
json run_bench(Device& device, Problem& problem, const BenchRequest& request,
               const std::function<void(const std::string& when)>& state_check = {});

}  // namespace ar::harness
