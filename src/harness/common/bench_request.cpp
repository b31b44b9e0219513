// Reading a bench request (PROTOCOL.md "bench"); every bad field is a
// bad_request naming it.
#include <algorithm>
#include <cmath>

#include "common/bench.h"

namespace ar::harness {

namespace {

constexpr int kMinRotations = 2;
constexpr int kMaxRotations = 64;
constexpr double kMaxPadUs = 1e6;   // a planted delay of at most 1 s per sample
constexpr long long kMaxVerifiedRotations = kMaxRotations;

[[noreturn]] void bad(const std::string& what, const std::string& slot = "") {
  throw HarnessError("bad_request", what, slot);
}

bool listed(const std::vector<std::string>& slots, const std::string& s) {
  return std::find(slots.begin(), slots.end(), s) != slots.end();
}

ReplayCheckRequest parse_replay_check(const json& replay, const std::vector<std::string>& bench_slots) {
  if (!replay.is_object()) bad("field 'replay_check': expected an object {check_slots, tolerances}");
  ReplayCheckRequest rc;
  std::vector<std::string> wanted;
  auto list = replay.find("check_slots");
  if (list != replay.end() && !list->is_null()) {
    if (!list->is_array() || list->empty())
      bad("field 'replay_check.check_slots': expected a non-empty array of slot names");
    for (const auto& s : *list) {
      if (!s.is_string()) bad("field 'replay_check.check_slots': expected slot names, got " + s.dump());
      wanted.push_back(s.get<std::string>());
    }
  } else if (replay.contains("slot")) {
    wanted.push_back(string_field(replay, "slot"));   // protocol 1: one checked slot
  } else {
    wanted = bench_slots;
  }
  for (const auto& s : wanted)
    if (!listed(bench_slots, s))
      bad("field 'replay_check': checked slot '" + s + "' is not one of 'slots'", s);
  for (const auto& s : bench_slots)   // the bench's order, each once
    if (listed(wanted, s)) rc.slots.push_back(s);
  rc.tolerances = tolerances_field(replay, "tolerances");
  const long long v = integer_field(replay, "verified_rotations", rc.verified_rotations);
  if (v < 1 || v > kMaxVerifiedRotations)
    bad("field 'replay_check.verified_rotations': expected an integer in [1, " +
        std::to_string(kMaxVerifiedRotations) + "]");
  rc.verified_rotations = static_cast<int>(v);
  return rc;
}

}  // namespace

int rotation_count(size_t cache_bytes, size_t rotation_bytes) {
  const double per = static_cast<double>(std::max<size_t>(rotation_bytes, 1));
  const double wanted = std::ceil(2.0 * static_cast<double>(cache_bytes) / per);
  return static_cast<int>(std::clamp(wanted, double(kMinRotations), double(kMaxRotations)));
}

BenchRequest parse_bench_request(const json& request) {
  BenchRequest rq;
  const json& slots = required_field(request, "slots");
  if (!slots.is_array() || slots.empty()) bad("field 'slots': expected a non-empty array of slot names");
  for (const auto& s : slots) {
    if (!s.is_string()) bad("field 'slots': expected slot names, got " + s.dump());
    if (listed(rq.slots, s.get<std::string>())) bad("field 'slots': '" + s.get<std::string>() + "' appears twice");
    rq.slots.push_back(s.get<std::string>());
  }
  rq.workload = workload_field(request);
  rq.seed = seed_field(request, "seed", 0);
  rq.cold = bool_field(request, "cold", true);
  rq.deterministic = bool_field(request, "deterministic", true);
  rq.stop.min_samples = std::max(1LL, integer_field(request, "min_samples", rq.stop.min_samples));
  rq.stop.min_seconds = number_field(request, "min_seconds", rq.stop.min_seconds);
  rq.stop.max_seconds = number_field(request, "max_seconds", rq.stop.max_seconds);
  rq.stop.max_samples = std::max(1LL, integer_field(request, "max_samples", rq.stop.max_samples));
  rq.stop.target_rel_ci = number_field(request, "target_rel_ci", rq.stop.target_rel_ci);
  auto replay = request.find("replay_check");
  if (replay != request.end() && !replay->is_null()) rq.replay_check = parse_replay_check(*replay, rq.slots);
  auto pad = request.find("pad");
  if (pad != request.end() && !pad->is_null()) {
    if (!pad->is_object()) bad("field 'pad': expected an object {slot, us}");
    PadRequest p;
    p.slot = string_field(*pad, "slot");
    p.us = number_field(*pad, "us", -1);
    if (!listed(rq.slots, p.slot)) bad("field 'pad.slot': '" + p.slot + "' is not one of 'slots'", p.slot);
    // Bounded so a typo cannot turn every sample into a multi-second spin.
    if (!(p.us >= 0 && p.us <= kMaxPadUs))
      bad("field 'pad.us': expected microseconds in [0, " + std::to_string(static_cast<long long>(kMaxPadUs)) + "]",
          p.slot);
    rq.pad = p;
  }
  return rq;
}

double pad_for(const BenchRequest& rq, const std::string& slot) {
  if (!rq.pad) return kNoPad;
  return slot == rq.pad->slot ? rq.pad->us : 0.0;
}

}  // namespace ar::harness
