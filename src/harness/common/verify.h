#pragma once
// The verify procedure (PROTOCOL.md "verify"): for every input distribution the
// problem declares, fresh inputs; poison; candidate; inputs unchanged; reference;
// poison; candidate again; bitwise agreement when deterministic; every element
// against the reference.
#include "common/device.h"
#include "common/request.h"

namespace ar::harness {

struct VerifyRequest {
  std::string slot;
  WorkloadRef workload;
  uint64_t seed = 0;
  std::vector<Tolerance> tolerances;
  bool deterministic = true;
};

VerifyRequest parse_verify_request(const json& request);

// The reply ({"ok":true,"pass":...}); a wrong kernel is pass:false, not an error.
json run_verify(Device& device, Problem& problem, const VerifyRequest& request);

}  // namespace ar::harness
