#include "cuda/tensor_map_check.h"

#include <string>

namespace ar::harness {

namespace {

// CUtensorMapSwizzle values an sm_90 map may use, and the span each swizzles.
constexpr int kSwizzleNone = 0, kSwizzle128 = 3;
unsigned swizzle_span_bytes(int swizzle) { return swizzle == kSwizzleNone ? 0u : 16u << swizzle; }   // 32, 64, 128

constexpr unsigned long long kMaxDim = 1ull << 32;      // cuTensorMapEncodeTiled's limits
constexpr unsigned long long kMaxStride = 1ull << 40;
constexpr unsigned kMaxBox = 256;
constexpr unsigned kMaxElementStride = 8;

std::string label(int index) { return "tensor map " + std::to_string(index) + ": "; }

}  // namespace

int tensor_map_element_bytes(int data_type) {
  // CU_TENSOR_MAP_DATA_TYPE_UINT8 .. _TFLOAT32_FTZ (cuda.h), in order.
  static constexpr int kBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  if (data_type < 0 || data_type >= static_cast<int>(sizeof kBytes / sizeof kBytes[0])) return 0;
  return kBytes[data_type];
}

std::string tensor_map_request_problem(const LaunchPlan& plan, int index, size_t params_bytes) {
  const TensorMapRequest& r = plan.tensor_map[index];
  const std::string at = label(index);
  if (r.source == kTensorMapFromParams) {
    if (r.param_offset < 0 || r.param_offset % 8 != 0 ||
        static_cast<size_t>(r.param_offset) + sizeof(void*) > params_bytes)
      return at + "param_offset " + std::to_string(r.param_offset) + " is not an aligned pointer inside the " +
             std::to_string(params_bytes) + "-byte params";
  } else if (r.source != kTensorMapFromWorkspace) {
    return at + "source " + std::to_string(r.source) + " is neither params (0) nor the workspace (1)";
  }
  const int element = tensor_map_element_bytes(r.data_type);
  if (element == 0)
    return at + "data_type " + std::to_string(r.data_type) + " is not a whole-byte CUtensorMapDataType (0..12)";
  if (r.rank < 1 || r.rank > 5) return at + "rank " + std::to_string(r.rank) + " is outside 1..5";
  if (r.interleave != 0)
    return at + "interleaved layouts (interleave " + std::to_string(r.interleave) + ") are not supported";
  if (r.swizzle < kSwizzleNone || r.swizzle > kSwizzle128)
    return at + "swizzle " + std::to_string(r.swizzle) + " is not none, 32B, 64B or 128B (0..3)";
  if (r.l2_promotion < 0 || r.l2_promotion > 3)
    return at + "l2_promotion " + std::to_string(r.l2_promotion) + " is outside 0..3";
  if (r.oob_fill < 0 || r.oob_fill > 1) return at + "oob_fill " + std::to_string(r.oob_fill) + " is outside 0..1";
  if (r.byte_offset % 16 != 0)
    return at + "byte_offset " + std::to_string(r.byte_offset) + " is not a multiple of 16";
  for (int i = 0; i < r.rank; ++i) {
    const std::string dim = " of dimension " + std::to_string(i);
    if (r.global_dim[i] < 1 || r.global_dim[i] > kMaxDim)
      return at + "the size " + std::to_string(r.global_dim[i]) + dim + " is outside 1..2^32";
    if (r.box_dim[i] < 1 || r.box_dim[i] > kMaxBox)
      return at + "the box " + std::to_string(r.box_dim[i]) + dim + " is outside 1..256";
    if (r.element_stride[i] < 1 || r.element_stride[i] > kMaxElementStride)
      return at + "the element stride " + std::to_string(r.element_stride[i]) + dim + " is outside 1..8";
    if (i >= 1 && (r.global_stride[i - 1] % 16 != 0 || r.global_stride[i - 1] >= kMaxStride))
      return at + "the stride " + std::to_string(r.global_stride[i - 1]) + dim +
             " is not a multiple of 16 bytes below 2^40";
  }
  const unsigned long long inner = static_cast<unsigned long long>(r.box_dim[0]) * element;
  if (inner % 16 != 0)
    return at + "the box's inner dimension is " + std::to_string(inner) + " bytes, not a multiple of 16";
  if (r.swizzle != kSwizzleNone && inner > swizzle_span_bytes(r.swizzle))
    return at + "the box's inner dimension is " + std::to_string(inner) + " bytes, more than its swizzle's " +
           std::to_string(swizzle_span_bytes(r.swizzle));
  const unsigned long long slot_end = r.map_offset + kTensorMapBytes;
  if (r.map_offset % kTensorMapBytes != 0 || slot_end < r.map_offset || slot_end > plan.workspace_bytes)
    return at + "map_offset " + std::to_string(r.map_offset) + " is not a 128-byte slot inside the " +
           std::to_string(plan.workspace_bytes) + "-byte workspace";
  return "";
}

std::string tensor_map_plan_problem(const LaunchPlan& plan, size_t params_bytes) {
  const int n = requested_tensor_maps(plan);
  if (n < 0 || n > kMaxTensorMaps)
    return "num_tensor_maps = " + std::to_string(n) + " (expected 0.." + std::to_string(kMaxTensorMaps) + ")";
  for (int i = 0; i < n; ++i)
    if (auto why = tensor_map_request_problem(plan, i, params_bytes); !why.empty()) return why;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (plan.tensor_map[i].map_offset == plan.tensor_map[j].map_offset)
        return "tensor maps " + std::to_string(i) + " and " + std::to_string(j) + " share map_offset " +
               std::to_string(plan.tensor_map[i].map_offset);
  return "";
}

std::optional<unsigned long long> tensor_map_last_byte(const TensorMapRequest& r, unsigned long long address) {
  unsigned long long span = 0;
  if (__builtin_mul_overflow(r.global_dim[0], static_cast<unsigned long long>(tensor_map_element_bytes(r.data_type)),
                             &span))
    return std::nullopt;
  for (int i = 1; i < r.rank; ++i) {
    unsigned long long step = 0;
    if (__builtin_mul_overflow(r.global_dim[i] - 1, r.global_stride[i - 1], &step) ||
        __builtin_add_overflow(span, step, &span))
      return std::nullopt;
  }
  unsigned long long last = 0;
  if (__builtin_add_overflow(address, span - 1, &last)) return std::nullopt;
  return last;
}

std::string tensor_map_reach_problem(const TensorMapRequest& r, unsigned long long address,
                                     unsigned long long allocation_base, unsigned long long allocation_bytes) {
  const unsigned long long allocation_end = allocation_base + allocation_bytes;   // one past its last byte
  const auto last = tensor_map_last_byte(r, address);
  if (!last) return "its dimensions and strides overflow the address space";
  if (address < allocation_base) return "it starts before the allocation that holds its base";
  if (*last >= allocation_end)
    return "it would address bytes " + std::to_string(address - allocation_base) + ".." +
           std::to_string(*last - allocation_base) + " of a " + std::to_string(allocation_bytes) +
           "-byte allocation (a map may reach only the buffer it is based on)";
  return "";
}

}  // namespace ar::harness
