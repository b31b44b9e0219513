#pragma once
// The kernel's single argument (protected: the harness's problem.cu and the
// editable kernel.cu share this layout; see sparse_mla.md for the math).
//
// Decode, "absorbed" MQA mode: every query head attends to the same latent KV
// rows. Shapes:
//   q            [batch, s_q, heads, 576] bf16   (512 latent | 64 rope)
//   kv (BF16)    [num_slots, 576] bf16           (V = the first 512 values of a row)
//   kv (FP8)     [num_slots] records of 656 bytes: 512 e4m3 | 4 fp32 scales
//                (one per 128 values, powers of two) | 64 bf16 rope
//   indices      [batch, s_q, topk] int32 flat slots (page * page_size + offset);
//                a slot < 0 or >= num_slots is invalid (-1 in practice)
//   topk_length  [batch] int32 or null: only the first topk_length[b] indices count
//   out          [batch, s_q, heads, 512] bf16
//   lse          [batch, heads, s_q] fp32, natural log, scale included:
//                lse = ln sum_t exp(scale * q . K_t); +inf (and out = 0) when no
//                position is valid
// Unused cache slots hold NaN: a kernel must never read a slot it has not
// validated (0 * NaN is NaN).
#include <cuda_bf16.h>

namespace sparse_mla {

inline constexpr int kDimQK = 576;        // latent 512 + rope 64
inline constexpr int kDimV = 512;
inline constexpr int kDimRope = 64;
inline constexpr int kBf16RowBytes = kDimQK * 2;   // 1152
inline constexpr int kFp8RecordBytes = 656;        // 512 + 16 + 128
inline constexpr int kFp8ScalesOffset = 512;       // 4 fp32
inline constexpr int kFp8RopeOffset = 528;         // 64 bf16
inline constexpr int kFp8ValuesPerScale = 128;

}  // namespace sparse_mla

struct SparseMlaParams {
  const __nv_bfloat16* q;
  const void* kv;
  const int* indices;
  const int* topk_length;   // nullable
  __nv_bfloat16* out;
  float* lse;
  void* workspace;          // filled in per slot by the harness (ar::LaunchPlan::workspace_bytes)
  int batch;
  int s_q;
  int heads;
  int topk;
  int num_slots;            // rows (records) in the cache; valid slots are [0, num_slots)
  int page_size;            // informational: indices are already flat slots
  int kv_fp8;               // 0: BF16 rows of 576 bf16; 1: FP8 records of 656 bytes
  float scale;              // softmax scale (the model's 0.13523 by default)
};
