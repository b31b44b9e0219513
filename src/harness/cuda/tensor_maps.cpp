#include "cuda/tensor_maps.h"

#include <cstring>

#include "common/device.h"
#include "cuda/cuda_check.h"
#include "cuda/tensor_map_check.h"

namespace ar::harness {

namespace {

std::string label(int index) { return "ar_plan: tensor map " + std::to_string(index) + ": "; }

// The base address of request `r`: the pointer Params holds at param_offset, or the workspace.
unsigned long long base_address(const TensorMapRequest& r, const std::vector<unsigned char>& params, void* workspace) {
  if (r.source == kTensorMapFromWorkspace) return reinterpret_cast<unsigned long long>(workspace);
  void* ptr = nullptr;
  std::memcpy(&ptr, params.data() + r.param_offset, sizeof ptr);
  return reinterpret_cast<unsigned long long>(ptr);
}

}  // namespace

static_assert(sizeof(CUtensorMap) == kTensorMapBytes, "a workspace slot holds one CUtensorMap");

std::vector<EncodedTensorMap> encode_tensor_maps(const LaunchPlan& plan, const std::vector<unsigned char>& params,
                                                 void* workspace, const std::string& slot) {
  std::vector<EncodedTensorMap> out;
  const int n = requested_tensor_maps(plan);
  for (int i = 0; i < n; ++i) {
    const TensorMapRequest& r = plan.tensor_map[i];
    const unsigned long long base = base_address(r, params, workspace);
    const std::string source = r.source == kTensorMapFromWorkspace
                                   ? std::string("the workspace")
                                   : "the pointer at params offset " + std::to_string(r.param_offset);
    if (base == 0) throw HarnessError("launch_error", label(i) + source + " is null", slot);
    // The allocation the base lies in bounds what the map may address.
    CUdeviceptr alloc_base = 0;
    size_t alloc_bytes = 0;
    if (const CUresult range = cuMemGetAddressRange(&alloc_base, &alloc_bytes, static_cast<CUdeviceptr>(base));
        range != CUDA_SUCCESS) {
      if (is_sticky(range)) throw_cuda_error(range, "fault", "cuMemGetAddressRange", __FILE__, __LINE__);
      throw HarnessError("launch_error", label(i) + source + " is not in device memory", slot);
    }
    const unsigned long long address = base + r.byte_offset;
    if (address < base) throw HarnessError("launch_error", label(i) + "byte_offset overflows the address", slot);
    if (auto why = tensor_map_reach_problem(r, address, alloc_base, alloc_bytes); !why.empty())
      throw HarnessError("launch_error", label(i) + "over " + source + ": " + why, slot);

    cuuint64_t dims[5] = {}, strides[4] = {};
    cuuint32_t box[5] = {}, element_strides[5] = {};
    for (int d = 0; d < r.rank; ++d) {
      dims[d] = r.global_dim[d];
      box[d] = r.box_dim[d];
      element_strides[d] = r.element_stride[d];
      if (d >= 1) strides[d - 1] = r.global_stride[d - 1];
    }
    EncodedTensorMap m;
    m.map_offset = r.map_offset;
    const CUresult e = cuTensorMapEncodeTiled(
        &m.map, static_cast<CUtensorMapDataType>(r.data_type), static_cast<cuuint32_t>(r.rank),
        reinterpret_cast<void*>(address), dims, strides, box, element_strides,
        static_cast<CUtensorMapInterleave>(r.interleave), static_cast<CUtensorMapSwizzle>(r.swizzle),
        static_cast<CUtensorMapL2promotion>(r.l2_promotion), static_cast<CUtensorMapFloatOOBfill>(r.oob_fill));
    if (e != CUDA_SUCCESS) {
      if (is_sticky(e)) throw_cuda_error(e, "fault", "cuTensorMapEncodeTiled", __FILE__, __LINE__);
      throw HarnessError("launch_error",
                         label(i) + "cuTensorMapEncodeTiled refused it (" +
                             describe(e, "cuTensorMapEncodeTiled", __FILE__, __LINE__) +
                             "; e.g. a base address that is not 16-byte aligned)",
                         slot);
    }
    out.push_back(m);
  }
  return out;
}

void write_tensor_maps(const std::vector<EncodedTensorMap>& maps, void* workspace, cudaStream_t stream) {
  for (const EncodedTensorMap& m : maps)
    AR_CUDA_CHECK(cudaMemcpyAsync(static_cast<unsigned char*>(workspace) + m.map_offset, &m.map, sizeof m.map,
                                  cudaMemcpyHostToDevice, stream));
}

}  // namespace ar::harness
