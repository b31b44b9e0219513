#pragma once
// The tensor maps a launch plan asks for (launch_plan.h), encoded on the host
// for one rotation's params and written into the slot's workspace before each
// launch. The checks that need no GPU are in tensor_map_check.h; here the base
// address is resolved, the allocation that holds it looked up (the map may
// reach nothing outside it), and cuTensorMapEncodeTiled called.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "autoresearch/harness/launch_plan.h"

namespace ar::harness {

struct EncodedTensorMap {
  unsigned long long map_offset = 0;   // in the workspace
  CUtensorMap map{};
};

// The plan's maps for a params blob with the workspace pointer already patched
// in (workspace: that pointer). Throws HarnessError("launch_error") naming the
// map and why it cannot be made. The plan passed tensor_map_plan_problem.
std::vector<EncodedTensorMap> encode_tensor_maps(const LaunchPlan& plan, const std::vector<unsigned char>& params,
                                                 void* workspace, const std::string& slot);

// Copies each map into the workspace at its offset, on the stream.
void write_tensor_maps(const std::vector<EncodedTensorMap>& maps, void* workspace, cudaStream_t stream);

}  // namespace ar::harness
