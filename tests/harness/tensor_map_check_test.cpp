// The harness's checks on a plan's tensor-map requests (src/harness/cuda/tensor_map_check.h): what a
// well-formed request looks like, what cuTensorMapEncodeTiled would refuse said in plain words, and the
// guard: a map may address nothing outside the allocation that holds its base.
#include <cstring>

#include "catch.h"
#include "cuda/tensor_map_check.h"

namespace {

constexpr int kBf16 = 9, kUint8 = 0, kSwizzle64 = 2, kSwizzle128 = 3;
constexpr unsigned long long kSlots = 1000, kRowBytes = 1152;   // a KV cache of 1000 rows of 576 bf16

// A plan with one map over a params pointer: rows of 576 bf16, a {64 values, 1 row} box with the
// 128-byte swizzle (what wgmma reads), written at workspace offset 256.
ar::LaunchPlan plan_with_kv_map() {
  ar::LaunchPlan plan{};
  plan.num_stages = 1;
  plan.workspace_bytes = 4096;
  plan.num_tensor_maps = 1;
  ar::TensorMapRequest& r = plan.tensor_map[0];
  r.source = ar::kTensorMapFromParams;
  r.param_offset = 16;
  r.data_type = kBf16;
  r.rank = 2;
  r.global_dim[0] = 576;
  r.global_dim[1] = kSlots;
  r.global_stride[0] = kRowBytes;
  r.box_dim[0] = 64;
  r.box_dim[1] = 1;
  r.element_stride[0] = r.element_stride[1] = 1;
  r.swizzle = kSwizzle128;
  r.map_offset = 256;
  return plan;
}

constexpr size_t kParamsBytes = 64;

std::string problem(const ar::LaunchPlan& plan) { return ar::harness::tensor_map_plan_problem(plan, kParamsBytes); }

}  // namespace

TEST_CASE("a well-formed request passes, and a plan that never wrote the count asks for none", "[tensor_map]") {
  CHECK(problem(plan_with_kv_map()).empty());
  ar::LaunchPlan none{};
  none.workspace_bytes = 0;
  CHECK(problem(none).empty());

  ar::LaunchPlan poisoned;
  std::memset(&poisoned, 0xFF, sizeof poisoned);   // the harness's fill before ar_plan runs
  CHECK(ar::requested_tensor_maps(poisoned) == 0);
  CHECK(problem(poisoned).empty());
}

TEST_CASE("a count outside 0..8 is refused", "[tensor_map]") {
  auto plan = plan_with_kv_map();
  plan.num_tensor_maps = ar::kMaxTensorMaps + 1;
  CHECK(problem(plan).find("num_tensor_maps = 9") != std::string::npos);
  plan.num_tensor_maps = -2;
  CHECK_FALSE(problem(plan).empty());
}

TEST_CASE("the base must be an aligned pointer inside the params, or the workspace", "[tensor_map]") {
  auto plan = plan_with_kv_map();
  plan.tensor_map[0].param_offset = 12;   // not a pointer's alignment
  CHECK(problem(plan).find("param_offset 12") != std::string::npos);
  plan.tensor_map[0].param_offset = 64;   // past the end
  CHECK(problem(plan).find("param_offset 64") != std::string::npos);
  plan.tensor_map[0].param_offset = -8;
  CHECK_FALSE(problem(plan).empty());
  plan.tensor_map[0].source = 7;
  CHECK(problem(plan).find("source 7") != std::string::npos);
  plan.tensor_map[0].source = ar::kTensorMapFromWorkspace;   // param_offset is then not read
  CHECK(problem(plan).empty());
}

TEST_CASE("types, ranks, boxes, strides and modes the encoder would refuse are named", "[tensor_map]") {
  auto with = [](auto edit) {
    auto plan = plan_with_kv_map();
    edit(plan.tensor_map[0]);
    return problem(plan);
  };
  CHECK(with([](ar::TensorMapRequest& r) { r.data_type = 13; }).find("data_type 13") != std::string::npos);
  CHECK(with([](ar::TensorMapRequest& r) { r.rank = 0; }).find("rank 0") != std::string::npos);
  CHECK(with([](ar::TensorMapRequest& r) { r.rank = 6; }).find("rank 6") != std::string::npos);
  CHECK(with([](ar::TensorMapRequest& r) { r.box_dim[1] = 257; }).find("the box 257") != std::string::npos);
  CHECK(with([](ar::TensorMapRequest& r) { r.box_dim[1] = 0; }).find("the box 0") != std::string::npos);
  CHECK(with([](ar::TensorMapRequest& r) { r.global_dim[1] = 0; }).find("dimension 1") != std::string::npos);
  CHECK(with([](ar::TensorMapRequest& r) { r.global_stride[0] = 1160 + 4; }).find("multiple of 16") !=
        std::string::npos);
  CHECK(with([](ar::TensorMapRequest& r) { r.element_stride[0] = 9; }).find("element stride 9") != std::string::npos);
  CHECK(with([](ar::TensorMapRequest& r) { r.interleave = 1; }).find("interleaved") != std::string::npos);
  CHECK(with([](ar::TensorMapRequest& r) { r.swizzle = 4; }).find("swizzle 4") != std::string::npos);
  CHECK(with([](ar::TensorMapRequest& r) { r.l2_promotion = 4; }).find("l2_promotion") != std::string::npos);
  CHECK(with([](ar::TensorMapRequest& r) { r.oob_fill = 2; }).find("oob_fill") != std::string::npos);
  CHECK(with([](ar::TensorMapRequest& r) { r.byte_offset = 8; }).find("byte_offset 8") != std::string::npos);
  // The box's inner row: a multiple of 16 bytes, and no wider than its swizzle's span.
  CHECK(with([](ar::TensorMapRequest& r) { r.box_dim[0] = 4; }).find("8 bytes") != std::string::npos);
  CHECK(with([](ar::TensorMapRequest& r) { r.swizzle = kSwizzle64; }).find("more than its swizzle's 64") !=
        std::string::npos);
  CHECK(with([](ar::TensorMapRequest& r) {
          r.swizzle = 0;
          r.box_dim[0] = 256;   // 512 bytes: fine without a swizzle
        }).empty());
  // The dimensions past the rank are not read.
  CHECK(with([](ar::TensorMapRequest& r) {
          r.global_dim[3] = 0;
          r.box_dim[4] = 999;
        }).empty());
}

TEST_CASE("each map needs its own 128-byte slot inside the workspace", "[tensor_map]") {
  auto plan = plan_with_kv_map();
  plan.tensor_map[0].map_offset = 64;   // not a slot
  CHECK(problem(plan).find("map_offset 64") != std::string::npos);
  plan.tensor_map[0].map_offset = 4096 - 128;   // the last slot
  CHECK(problem(plan).empty());
  plan.tensor_map[0].map_offset = 4096;
  CHECK(problem(plan).find("inside the 4096-byte workspace") != std::string::npos);
  plan.tensor_map[0].map_offset = ~0ull - 63;   // wraps around
  CHECK_FALSE(problem(plan).empty());
  plan.workspace_bytes = 0;
  plan.tensor_map[0].map_offset = 0;
  CHECK_FALSE(problem(plan).empty());

  plan = plan_with_kv_map();
  plan.num_tensor_maps = 2;
  plan.tensor_map[1] = plan.tensor_map[0];
  CHECK(problem(plan).find("share map_offset 256") != std::string::npos);
  plan.tensor_map[1].map_offset = 384;
  CHECK(problem(plan).empty());
}

TEST_CASE("a map may address only the allocation that holds its base", "[tensor_map]") {
  using ar::harness::tensor_map_reach_problem;
  const auto r = plan_with_kv_map().tensor_map[0];
  const unsigned long long alloc = 0x7f0000000000ull, bytes = kSlots * kRowBytes;
  // Exactly the buffer: the last byte is the last row's 576th value's second byte.
  CHECK(ar::harness::tensor_map_last_byte(r, alloc) == alloc + (kSlots - 1) * kRowBytes + 576 * 2 - 1);
  CHECK(tensor_map_reach_problem(r, alloc, alloc, bytes).empty());
  // One row more reaches past its end (into whatever the allocator put next).
  auto longer = r;
  longer.global_dim[1] = kSlots + 1;
  CHECK(tensor_map_reach_problem(longer, alloc, alloc, bytes).find("a map may reach only the buffer") !=
        std::string::npos);
  // So does the right shape started further in (a byte_offset), or a stride that skips past the end.
  CHECK_FALSE(tensor_map_reach_problem(r, alloc + 1152, alloc, bytes).empty());
  auto wide = r;
  wide.global_stride[0] = 2 * kRowBytes;
  CHECK_FALSE(tensor_map_reach_problem(wide, alloc, alloc, bytes).empty());
  // A map over part of the buffer, anywhere inside it, is fine.
  auto part = r;
  part.global_dim[1] = 10;
  CHECK(tensor_map_reach_problem(part, alloc + 100 * kRowBytes, alloc, bytes).empty());
  CHECK_FALSE(tensor_map_reach_problem(part, alloc - 16, alloc, bytes).empty());
  // Sizes whose product overflows 64 bits are refused, not wrapped around into range.
  auto huge = r;
  huge.rank = 3;
  huge.global_dim[2] = 1ull << 32;
  huge.global_stride[1] = (1ull << 40) - 16;
  huge.box_dim[2] = huge.element_stride[2] = 1;
  CHECK(tensor_map_reach_problem(huge, alloc, alloc, bytes).find("overflow") != std::string::npos);
}

TEST_CASE("element sizes follow cuda.h's CUtensorMapDataType order; sub-byte types are refused", "[tensor_map]") {
  using ar::harness::tensor_map_element_bytes;
  CHECK(tensor_map_element_bytes(kUint8) == 1);
  CHECK(tensor_map_element_bytes(kBf16) == 2);
  CHECK(tensor_map_element_bytes(7) == 4);    // FLOAT32
  CHECK(tensor_map_element_bytes(8) == 8);    // FLOAT64
  CHECK(tensor_map_element_bytes(12) == 4);   // TFLOAT32_FTZ
  CHECK(tensor_map_element_bytes(13) == 0);   // 16U4_ALIGN8B
  CHECK(tensor_map_element_bytes(-1) == 0);
}
