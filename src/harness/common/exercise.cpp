#include "common/exercise.h"

#include <algorithm>
#include <chrono>

#include "common/session.h"

namespace ar::harness {

ExerciseRequest parse_exercise_request(const json& request) {
  ExerciseRequest rq;
  rq.slot = string_field(request, "slot");
  rq.workload = workload_field(request);
  rq.seed = seed_field(request, "seed", 0);
  const long long n = integer_field(request, "distributions", 0);
  if (n < 0) throw HarnessError("bad_request", "field 'distributions': expected a count >= 0 (0: all)");
  rq.distributions = static_cast<int>(std::min<long long>(n, 1 << 20));
  return rq;
}

json run_exercise(Device& device, Problem& problem, const ExerciseRequest& rq) {
  const auto start = std::chrono::steady_clock::now();
  ProblemSession session(device, problem);
  session.prepare_unpadded_rotation(rq.slot, rq.workload.params);
  // The same inputs a verify with this seed draws, poisoned outputs as there.
  const int count = rq.distributions > 0 ? std::min(rq.distributions, problem.distributions()) : problem.distributions();
  for (int d = 0; d < count; ++d) {
    problem.randomize(0, derive_seed(rq.seed, static_cast<uint64_t>(d)), d);
    problem.poison_outputs(0);
    device.run(rq.slot, 0);
  }
  device.synchronize();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return json{{"ok", true},
              {"workload", rq.workload.name},
              {"distributions", count},
              {"seconds", seconds}};
}

json run_launch(Device& device, Problem& problem, const ExerciseRequest& rq) {
  ProblemSession session(device, problem);
  session.prepare_unpadded_rotation(rq.slot, rq.workload.params);
  return json{{"ok", true},
              {"workload", rq.workload.name},
              {"launch", device.launch_signature(rq.slot)},
              {"occupancy", device.launch_occupancy(rq.slot)}};
}

}  // namespace ar::harness
