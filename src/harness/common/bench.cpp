#include "common/bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "common/session.h"

namespace ar::harness {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kMinRotations = 2;
constexpr int kMaxRotations = 64;
constexpr int kWarmupMinRuns = 3;          // per slot: first calls pay for page faults, i-cache, graphs
constexpr double kWarmupMaxSeconds = 1.0;  // the clock never came up: measure anyway, rounds get dropped
constexpr double kUnknownClockWarmupSeconds = 0.05;  // CPU: no clock to watch; long enough for turbo ramp-up
constexpr double kLowClockFraction = 0.75;
constexpr double kMaxPadUs = 1e6;   // a planted delay of at most 1 s per sample

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

bool clock_low(double mhz, double default_mhz) {
  return mhz >= 0 && default_mhz > 0 && mhz < kLowClockFraction * default_mhz;
}

// One sample. The outputs are poisoned first (outside the timed region): in a
// round every slot writes the same output buffers, so without it a kernel
// could find the previous slot's correct answer already there and skip work.
double sample(Device& device, Problem& problem, const std::string& slot, int rotation, bool cold) {
  problem.poison_outputs(rotation);
  return device.time_once(slot, rotation, cold);
}

// Runs every slot on the timed path (not cold) until the SM clock has come up,
// or, where the clock is unknown, for a short fixed time.
void warm_up(Device& device, Problem& problem, const std::vector<std::string>& slots, int rotations) {
  const auto start = Clock::now();
  const double default_mhz = device.default_sm_clock_mhz();
  for (int run = 1;; ++run) {
    for (const auto& slot : slots) sample(device, problem, slot, (run - 1) % rotations, false);
    const double elapsed = seconds_since(start);
    if (elapsed >= kWarmupMaxSeconds) return;
    if (run < kWarmupMinRuns) continue;
    if (default_mhz > 0) {
      if (!clock_low(device.sm_clock_mhz(), default_mhz)) return;
    } else if (elapsed >= kUnknownClockWarmupSeconds) {
      return;
    }
  }
}

// Where and when the replay check happens. The round is drawn among the first
// min_samples rounds (so it always runs before the bench may stop), never the
// first; it reuses the rotation of an earlier round, so a kernel that caches its
// results by buffer address has already seen those buffers and is caught
// serving the stale answer.
struct ReplayPlan {
  long long round = -1;
  int rotation = 0;
  uint64_t seed = 0;
};

ReplayPlan plan_replay(const BenchRequest& rq, int rotations) {
  ReplayPlan plan;
  if (!rq.replay_check) return plan;
  // Unpredictable per bench, and reported, so a failure can be reproduced.
  std::random_device entropy;
  plan.seed = derive_seed(rq.seed ^ (static_cast<uint64_t>(entropy()) << 32 | entropy()), 0x5e1);
  std::mt19937_64 rng(plan.seed);
  const long long limit = std::max(1LL, std::min(rq.stop.min_samples, rq.stop.max_samples));
  plan.round = limit > 1 ? 1 + static_cast<long long>(rng() % static_cast<uint64_t>(limit - 1)) : 0;
  const long long earlier = plan.round > 0 ? static_cast<long long>(rng() % static_cast<uint64_t>(plan.round)) : 0;
  plan.rotation = static_cast<int>(earlier % rotations);
  return plan;
}

// Forward on even rounds, reversed on odd ones, so each slot runs first and
// last equally often. In the replay round the checked slot runs last, so its
// output is still there to check after the round.
std::vector<size_t> round_order(size_t slots, long long round, long long checked_slot) {
  std::vector<size_t> order(slots);
  for (size_t i = 0; i < slots; ++i) order[i] = i;
  if (round % 2 == 1) std::reverse(order.begin(), order.end());
  if (checked_slot >= 0) {
    auto it = std::find(order.begin(), order.end(), static_cast<size_t>(checked_slot));
    std::rotate(it, it + 1, order.end());
  }
  return order;
}

json clock_summary(const std::vector<std::vector<double>>& mhz, double default_mhz) {
  double sum = 0, lowest = -1;
  long long n = 0;
  for (const auto& slot : mhz)
    for (double x : slot) {
      if (x < 0) continue;
      sum += x;
      ++n;
      lowest = lowest < 0 ? x : std::min(lowest, x);
    }
  return json{{"default_sm_mhz", default_mhz > 0 ? default_mhz : -1.0},
              {"mean_sm_mhz", n > 0 ? sum / static_cast<double>(n) : -1.0},
              {"min_sm_mhz", lowest}};
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
  if (!slots.is_array() || slots.empty())
    throw HarnessError("bad_request", "field 'slots': expected a non-empty array of slot names");
  for (const auto& s : slots) {
    if (!s.is_string()) throw HarnessError("bad_request", "field 'slots': expected slot names, got " + s.dump());
    if (std::find(rq.slots.begin(), rq.slots.end(), s.get<std::string>()) != rq.slots.end())
      throw HarnessError("bad_request", "field 'slots': '" + s.get<std::string>() + "' appears twice");
    rq.slots.push_back(s.get<std::string>());
  }
  rq.workload = workload_field(request);
  rq.seed = seed_field(request, "seed", 0);
  rq.cold = bool_field(request, "cold", true);
  rq.stop.min_samples = std::max(1LL, integer_field(request, "min_samples", rq.stop.min_samples));
  rq.stop.min_seconds = number_field(request, "min_seconds", rq.stop.min_seconds);
  rq.stop.max_seconds = number_field(request, "max_seconds", rq.stop.max_seconds);
  rq.stop.max_samples = std::max(1LL, integer_field(request, "max_samples", rq.stop.max_samples));
  rq.stop.target_rel_ci = number_field(request, "target_rel_ci", rq.stop.target_rel_ci);
  auto replay = request.find("replay_check");
  if (replay != request.end() && !replay->is_null()) {
    if (!replay->is_object()) throw HarnessError("bad_request", "field 'replay_check': expected an object {slot, tolerances}");
    ReplayCheckRequest rc;
    rc.slot = string_field(*replay, "slot");
    rc.tolerances = tolerances_field(*replay, "tolerances");
    if (std::find(rq.slots.begin(), rq.slots.end(), rc.slot) == rq.slots.end())
      throw HarnessError("bad_request", "field 'replay_check.slot': '" + rc.slot + "' is not one of 'slots'", rc.slot);
    rq.replay_check = rc;
  }
  auto pad = request.find("pad");
  if (pad != request.end() && !pad->is_null()) {
    if (!pad->is_object()) throw HarnessError("bad_request", "field 'pad': expected an object {slot, us}");
    PadRequest p;
    p.slot = string_field(*pad, "slot");
    p.us = number_field(*pad, "us", -1);
    if (std::find(rq.slots.begin(), rq.slots.end(), p.slot) == rq.slots.end())
      throw HarnessError("bad_request", "field 'pad.slot': '" + p.slot + "' is not one of 'slots'", p.slot);
    // Bounded so a typo cannot turn every sample into a multi-second spin.
    if (!(p.us >= 0 && p.us <= kMaxPadUs))
      throw HarnessError("bad_request", "field 'pad.us': expected microseconds in [0, " +
                                            std::to_string(static_cast<long long>(kMaxPadUs)) + "]",
                         p.slot);
    rq.pad = p;
  }
  return rq;
}

double pad_for(const BenchRequest& rq, const std::string& slot) {
  if (!rq.pad) return kNoPad;
  return slot == rq.pad->slot ? rq.pad->us : 0.0;
}

json run_bench(Device& device, Problem& problem, const BenchRequest& rq) {
  const auto start = Clock::now();
  for (const auto& slot : rq.slots)
    if (!device.loaded(slot)) throw HarnessError("bad_request", "slot '" + slot + "' is not loaded", slot);
  if (problem.distributions() < 1)
    throw HarnessError("problem_error", "the problem declares no input distributions");

  ProblemSession session(device, problem);
  const int rotations = rotation_count(device.cache_bytes(), problem.rotation_bytes(rq.workload.params));
  session.prepare(rq.workload.params, rotations);
  for (int r = 0; r < rotations; ++r) {
    // Timing uses the first distribution throughout; verify covers the others.
    problem.randomize(r, derive_seed(rq.seed, static_cast<uint64_t>(r)), 0);
    problem.poison_outputs(r);  // first touch of the outputs happens here, not in a sample
  }
  for (const auto& slot : rq.slots) device.bind(slot, problem, rotations, pad_for(rq, slot));

  const double temperature_start = device.temperature_c();
  const double default_mhz = device.default_sm_clock_mhz();
  warm_up(device, problem, rq.slots, rotations);

  const ReplayPlan replay = plan_replay(rq, rotations);
  long long checked_slot = -1;
  if (rq.replay_check)
    checked_slot = std::find(rq.slots.begin(), rq.slots.end(), rq.replay_check->slot) - rq.slots.begin();
  json replay_report;

  const size_t n_slots = rq.slots.size();
  std::vector<std::vector<double>> samples(n_slots), mhz(n_slots);
  std::vector<double> round_us(n_slots), round_mhz(n_slots);
  long long dropped = 0;
  long long next_check = rq.stop.min_samples;  // the stop rule sorts; evaluate it on a geometric schedule
  std::string stop;
  const auto sampling_start = Clock::now();

  for (long long round = 0;; ++round) {
    const bool is_replay = round == replay.round;
    const int rotation = is_replay ? replay.rotation : static_cast<int>(round % rotations);
    if (is_replay) problem.randomize(rotation, replay.seed, 0);

    bool low = false;
    for (size_t i : round_order(n_slots, round, is_replay ? checked_slot : -1)) {
      round_us[i] = sample(device, problem, rq.slots[i], rotation, rq.cold);
      round_mhz[i] = device.sm_clock_mhz();
      low = low || clock_low(round_mhz[i], default_mhz);
    }

    if (is_replay) {
      device.synchronize();
      problem.run_reference(rotation);
      auto checks = problem.check(rotation, rq.replay_check->tolerances, derive_seed(replay.seed, 1));
      std::string reason;
      const bool pass = checks_pass(checks, &reason);
      replay_report = json{{"slot", rq.replay_check->slot}, {"round", round},
                           {"rotation", rotation},          {"seed", replay.seed},
                           {"pass", pass},                  {"reason", reason},
                           {"outputs", to_json(checks)}};
    }

    if (low) {
      ++dropped;
    } else {
      for (size_t i = 0; i < n_slots; ++i) {
        samples[i].push_back(round_us[i]);
        mhz[i].push_back(round_mhz[i]);
      }
    }

    if (round < replay.round) continue;  // the replay round always happens
    const auto kept = static_cast<long long>(samples[0].size());
    const double elapsed = seconds_since(sampling_start);
    const bool at_limit = kept >= rq.stop.max_samples || elapsed >= rq.stop.max_seconds;
    if (!at_limit && kept < next_check) continue;
    if (kept >= next_check) next_check = kept + std::max(1LL, kept / 16);
    stop = stop_reason(rq.stop, samples, elapsed);
    if (!stop.empty()) break;
  }

  json reply{{"ok", true},
             {"rotations", rotations},
             {"rounds", static_cast<long long>(samples[0].size())},
             {"dropped_rounds", dropped},
             {"stop", stop},
             {"workload", rq.workload.name}};
  json samples_json = json::object(), mhz_json = json::object();
  for (size_t i = 0; i < n_slots; ++i) {
    samples_json[rq.slots[i]] = samples[i];
    mhz_json[rq.slots[i]] = mhz[i];
  }
  reply["samples"] = std::move(samples_json);
  reply["sm_mhz"] = std::move(mhz_json);
  reply["clock"] = clock_summary(mhz, default_mhz);
  reply["temperature_c"] = json{{"start", temperature_start}, {"end", device.temperature_c()}};
  if (rq.replay_check) reply["replay_check"] = std::move(replay_report);
  if (rq.pad) reply["pad"] = json{{"slot", rq.pad->slot}, {"us", rq.pad->us}};
  reply["seconds"] = seconds_since(start);
  return reply;
}

}  // namespace ar::harness
