#include "common/bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "common/replay_guard.h"
#include "common/replay_schedule.h"
#include "common/session.h"

namespace ar::harness {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kWarmupMinRuns = 3;          // per slot: first calls pay for page faults, i-cache, graphs
constexpr double kWarmupMaxSeconds = 1.0;  // the clock never came up: measure anyway, rounds get dropped
constexpr double kUnknownClockWarmupSeconds = 0.05;  // CPU: no clock to watch; long enough for turbo ramp-up
constexpr double kLowClockFraction = 0.75;

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
// or, where the clock is unknown, for a short fixed time. Each replay is
// checked like a sample.
void warm_up(Device& device, Problem& problem, const std::vector<std::string>& slots, int rotations,
             ReplayGuard* guard) {
  const auto start = Clock::now();
  const double default_mhz = device.default_sm_clock_mhz();
  for (int run = 1;; ++run) {
    const int rotation = (run - 1) % rotations;
    for (size_t i = 0; i < slots.size(); ++i) {
      sample(device, problem, slots[i], rotation, false);
      // Throws on a mismatch; warm-up replays are never tolerance-checked, so it cannot fail otherwise.
      if (guard) (void)guard->after_sample(i, rotation, run - 1, Replay::Warmup, false);
    }
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

// Forward on even rounds, reversed on odd ones, so each slot runs first and
// last equally often. (Every checked slot is checked right after its own
// sample, so no slot needs to run last.)
std::vector<size_t> round_order(size_t slots, long long round) {
  std::vector<size_t> order(slots);
  for (size_t i = 0; i < slots; ++i) order[i] = i;
  if (round % 2 == 1) std::reverse(order.begin(), order.end());
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

// The replay checks' randomness: unpredictable per bench (the kernel never
// sees it), and reported, so a failure can be reproduced.
uint64_t replay_seed(uint64_t request_seed) {
  std::random_device entropy;
  return derive_seed(request_seed ^ (static_cast<uint64_t>(entropy()) << 32 | entropy()), 0x5e1);
}

}  // namespace

json run_bench(Device& device, Problem& problem, const BenchRequest& rq,
               const std::function<void(const std::string&)>& state_check) {
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

  const size_t n_slots = rq.slots.size();
  const uint64_t check_seed = rq.replay_check ? replay_seed(rq.seed) : 0;
  std::mt19937_64 rng(check_seed);
  std::optional<ReplayGuard> guard;
  if (rq.replay_check) guard.emplace(device, problem, rq, rotations, rng());

  json reply{{"ok", true}, {"rotations", rotations}, {"workload", rq.workload.name}};
  std::vector<std::vector<double>> samples(n_slots), mhz(n_slots);
  long long dropped = 0;
  std::string stop;
  const double default_mhz = device.default_sm_clock_mhz();
  const double temperature_start = device.temperature_c();

  // A wrong kernel ends the bench early; its reply still says why (replay_check.pass false).
  auto finish = [&]() {
    reply["rounds"] = static_cast<long long>(samples[0].size());
    reply["dropped_rounds"] = dropped;
    reply["stop"] = stop;
    json samples_json = json::object(), mhz_json = json::object();
    for (size_t i = 0; i < n_slots; ++i) {
      samples_json[rq.slots[i]] = samples[i];
      mhz_json[rq.slots[i]] = mhz[i];
    }
    reply["samples"] = std::move(samples_json);
    reply["sm_mhz"] = std::move(mhz_json);
    reply["clock"] = clock_summary(mhz, default_mhz);
    reply["temperature_c"] = json{{"start", temperature_start}, {"end", device.temperature_c()}};
    if (guard) {
      json report = guard->report();
      for (auto it = reply["replay_check"].begin(); it != reply["replay_check"].end(); ++it) report[it.key()] = *it;
      report["seed"] = check_seed;
      reply["replay_check"] = std::move(report);
    }
    if (rq.pad) reply["pad"] = json{{"slot", rq.pad->slot}, {"us", rq.pad->us}};
    reply["seconds"] = seconds_since(start);
    return reply;
  };
  if (guard) reply["replay_check"] = json::object();   // where the bench notes its drawn rounds

  if (guard && !guard->establish()) {
    stop = "wrong";
    return finish();
  }
  warm_up(device, problem, rq.slots, rotations, guard ? &*guard : nullptr);

  // The re-randomised round, and (nondeterministic kernels) the drawn rounds.
  RerandomisedRound rerandomised(rq.stop, rng);
  const int rerandomised_rotation = static_cast<int>(rng() % static_cast<uint64_t>(rotations));
  if (guard) reply["replay_check"]["rotation"] = rerandomised_rotation;
  RandomCheckRounds random_checks(rq.stop.min_samples, rng());
  const bool random_rounds = guard && !rq.deterministic;

  std::vector<double> round_us(n_slots), round_mhz(n_slots);
  long long next_check = rq.stop.min_samples;  // the stop rule sorts; evaluate it on a geometric schedule
  const auto sampling_start = Clock::now();

  // One round; false when a checked replay was wrong (the bench ends).
  auto run_round = [&](long long round, bool last) {
    const bool rerandomise = guard && !last && rerandomised.due(round, seconds_since(sampling_start));
    const int rotation = rerandomise ? rerandomised_rotation : static_cast<int>(round % rotations);
    if (rerandomise) {
      guard->rerandomise(rotation, rng());
      reply["replay_check"]["round"] = round;
    }
    const Replay kind = rerandomise ? Replay::Rerandomised : last ? Replay::Last : Replay::Timed;
    const bool tolerance_check = random_rounds && (last || random_checks.due(round));
    bool low = false;
    for (size_t i : round_order(n_slots, round)) {
      round_us[i] = sample(device, problem, rq.slots[i], rotation, rq.cold);
      round_mhz[i] = device.sm_clock_mhz();   // read right after the sample, before any check
      low = low || clock_low(round_mhz[i], default_mhz);
      if (guard && !guard->after_sample(i, rotation, round, kind, tolerance_check)) return false;
    }
    if (low) {
      ++dropped;
    } else {
      for (size_t i = 0; i < n_slots; ++i) {
        samples[i].push_back(round_us[i]);
        mhz[i].push_back(round_mhz[i]);
      }
    }
    return true;
  };

  long long round = 0;
  for (;; ++round) {
    if (!run_round(round, false)) {
      stop = "wrong";
      return finish();
    }
    const auto kept = static_cast<long long>(samples[0].size());
    const double elapsed = seconds_since(sampling_start);
    const bool at_limit = kept >= rq.stop.max_samples || elapsed >= rq.stop.max_seconds;
    // The re-randomised round always happens, unless a limit comes first (the final check still runs).
    if (guard && !rerandomised.done() && !at_limit) continue;
    if (!at_limit && kept < next_check) continue;
    if (kept >= next_check) next_check = kept + std::max(1LL, kept / 16);
    if (state_check) state_check("during the bench, by round " + std::to_string(round));
    stop = stop_reason(rq.stop, samples, elapsed);
    if (!stop.empty()) break;
  }

  if (guard) {
    // A nondeterministic kernel's last round is checked too: one more round, kept like the others.
    if (random_rounds && !run_round(++round, true)) {
      stop = "wrong";
      return finish();
    }
    // Verification again after the timing, in the same harness state.
    const int final_rotation = static_cast<int>(rng() % static_cast<uint64_t>(rotations));
    reply["replay_check"]["final_rotation"] = final_rotation;
    if (guard->final_check(final_rotation, rng(), rq.cold)) guard->require_inputs_unchanged("after the bench");
  }
  return finish();
}

}  // namespace ar::harness
