#pragma once
// The checks on a launch plan's tensor-map requests (launch_plan.h) that need
// no GPU: the request is well formed, its map has a slot of its own in the
// workspace, and the bytes the map can address lie inside the one allocation
// that holds its base address. The last is the guard: a TMA copy is not
// bounds-checked against allocations (only against the map's own dimensions),
// and compute-sanitizer does not see it, so a map drawn past its buffer would
// read or write whatever lies beside it (another input, the harness's own
// memory) unseen. Host C++ only: unit-tested without a GPU.
#include <cstddef>
#include <optional>
#include <string>

#include "autoresearch/harness/launch_plan.h"

namespace ar::harness {

// The bytes of one element of a CUtensorMapDataType the harness encodes;
// 0 for the sub-byte types (and anything unknown), which it refuses.
int tensor_map_element_bytes(int data_type);

// Why the plan's request `index` cannot be encoded, or "" when it can, as far
// as the request alone says: the source and the pointer's place in Params
// (params_bytes long), the type, rank, dimensions, strides, box and modes, and
// the map's slot in the plan's workspace. cuTensorMapEncodeTiled still has
// the last word on the rest.
std::string tensor_map_request_problem(const LaunchPlan& plan, int index, size_t params_bytes);

// Why the plan's requests cannot all be encoded ("" when they can): a count
// outside 0..kMaxTensorMaps, a request with a problem, or two maps that would
// be written over each other.
std::string tensor_map_plan_problem(const LaunchPlan& plan, size_t params_bytes);

// The last byte a map based at `address` can address:
// address + dim0 * element - 1 + sum over i >= 1 of (dim_i - 1) * stride_{i-1}.
// nullopt when that overflows 64 bits. For a request that passed
// tensor_map_request_problem.
std::optional<unsigned long long> tensor_map_last_byte(const TensorMapRequest& r, unsigned long long address);

// Why the map based at `address` (the base plus byte_offset) would reach
// outside [allocation_base, allocation_base + allocation_bytes), or "".
std::string tensor_map_reach_problem(const TensorMapRequest& r, unsigned long long address,
                                     unsigned long long allocation_base, unsigned long long allocation_bytes);

}  // namespace ar::harness
