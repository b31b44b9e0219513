#pragma once
// The exercise procedure (PROTOCOL.md "exercise"): the candidate once on fresh
// inputs of every distribution, nothing else. It is what compute-sanitizer
// runs the harness on: the sanitizer instruments every kernel of the process,
// and a verify would have it instrument the reference, the generators, the
// comparisons and the fingerprints too, whose checking says nothing about the
// candidate and was most of the sanitizer's time.
#include "common/device.h"
#include "common/request.h"

namespace ar::harness {

struct ExerciseRequest {
  std::string slot;
  WorkloadRef workload;
  uint64_t seed = 0;
  int distributions = 0;   // run the first N input distributions only (0: all)
};

ExerciseRequest parse_exercise_request(const json& request);

// {"ok":true,"workload":...,"distributions":N,"seconds":...}; a launch error
// or a fault is the usual error reply.
json run_exercise(Device& device, Problem& problem, const ExerciseRequest& request);

// The launch procedure (PROTOCOL.md "launch"): the slot bound to the workload, nothing run;
// {"ok":true,"workload":...,"launch":Device::launch_signature}.
json run_launch(Device& device, Problem& problem, const ExerciseRequest& request);

}  // namespace ar::harness
