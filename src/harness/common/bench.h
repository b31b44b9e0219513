#pragma once
// The bench procedure (PROTOCOL.md "bench"): rotated inputs, warm-up, then
// interleaved rounds (A B, B A, ...) on the same rotation until the stop rule
// holds, with one round optionally re-checked on re-randomised inputs.
#include <optional>

#include "common/device.h"
#include "common/request.h"
#include "common/stop_rule.h"

namespace ar::harness {

struct ReplayCheckRequest {
  std::string slot;
  std::vector<Tolerance> tolerances;
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

json run_bench(Device& device, Problem& problem, const BenchRequest& request);

}  // namespace ar::harness
