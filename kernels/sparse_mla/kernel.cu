// sparse_mla decode: DeepSeek DSA sparse MLA attention, one latent KV head shared
// by every query head (see ../../context/models/deepseek_v32_sparse_mla.md).
//
// The plain first version (README.md): one block per (query token, group of
// HEADS_PER_BLOCK heads, split of the top-k list). Each key tile of
// KEYS_PER_TILE gathered rows is loaded into shared memory ONCE and used by all
// heads of the block (the MQA reuse), then
//   S = Q K^T       (mma.sync m16n8k16 bf16 -> fp32)
//   online softmax  (running max / sum per head row, exp2 with log2(e) folded in)
//   O = a O + P V   (mma.sync; V is the first 512 columns of the same K rows)
// With more than one split, each split writes O / l and its lse to the
// workspace and ar_stage1 merges them with log-sum-exp weights.
//
// Compiled to a cubin only; the harness calls ar_plan once per workload, then
// launches ar_stage0 (and ar_stage1) with the plan's grids.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>

#include "autoresearch/harness/launch_plan.h"
#include "sparse_mla_params.h"

// ---- tunables (manifest.json lists the allowed values and constraints) ----
#ifndef HEADS_PER_BLOCK
#define HEADS_PER_BLOCK 64   // query heads per block: each gathered row serves them all
#endif
#ifndef KEYS_PER_TILE
#define KEYS_PER_TILE 32     // gathered rows per shared-memory tile
#endif
#ifndef THREADS
#define THREADS 256          // threads per block
#endif
#ifndef SPLIT_WAVES
#define SPLIT_WAVES 1        // split the top-k list until about this many waves of blocks (0: never)
#endif
#ifndef KV_STAGES
#define KV_STAGES 1          // 2: gather the next tile (cp.async) while computing this one
#endif
#ifndef LDMATRIX
#define LDMATRIX 0           // 1: load Q, K and P fragments with ldmatrix (one instruction per
                             // four 8x8 matrices) instead of one 32-bit load per register
#endif

namespace {

using namespace sparse_mla;

constexpr int HB = HEADS_PER_BLOCK;
constexpr int BK = KEYS_PER_TILE;
constexpr int NWARPS = THREADS / 32;
constexpr int ROW = kDimQK + 8;          // bf16 per shared row: +16 B makes fragment loads conflict-free
constexpr int ROW_BYTES = ROW * 2;       // 1168
constexpr int QK_STEPS = kDimQK / 16;    // 36 k-steps of 16
constexpr int BF16_CHUNKS = kBf16RowBytes / 16;   // 72 16-byte chunks per BF16 row
constexpr int FP8_CHUNKS = kFp8RecordBytes / 16;  // 41 per FP8 record

// S = Q K^T: warp w takes m-tile (16 heads) w / WARPS_PER_MT, NT_PER_WARP n-tiles
// of 8 keys, and a 1/KSPLIT share of the 36 k-steps when warps outnumber tiles
// (the partial sums are added in a fixed order, so results stay deterministic).
constexpr int MT = HB / 16;
constexpr int NT = BK / 8;
constexpr int WARPS_PER_MT = NWARPS / MT;
constexpr int WN = WARPS_PER_MT < NT ? WARPS_PER_MT : NT;
constexpr int KSPLIT = WARPS_PER_MT / WN;
constexpr int NT_PER_WARP = NT / WN;

// O += P V: warp w owns value columns [w * COLS_PER_WARP, +COLS_PER_WARP) of all HB rows.
constexpr int COLS_PER_WARP = kDimV / NWARPS;
constexpr int NV = COLS_PER_WARP / 8;

// Softmax: TPR consecutive threads (one warp's lanes) share a head row.
constexpr int TPR = THREADS / HB;
constexpr int KPT = BK / TPR;

constexpr int SROW = BK + 4;             // fp32 per score row
constexpr int PROW = BK + 8;             // bf16 per probability row (+16 B: conflict-free A loads)

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;
constexpr int kMaxSplits = 128;

static_assert(HB % 16 == 0 && HB >= 16, "HEADS_PER_BLOCK must be a multiple of 16");
static_assert(BK % 16 == 0 && BK >= 16, "KEYS_PER_TILE must be a multiple of 16");
static_assert(THREADS % 32 == 0 && THREADS <= 1024, "THREADS must be a multiple of 32");
static_assert(NWARPS % MT == 0, "the warps must cover the m-tiles evenly (THREADS/32 >= HEADS_PER_BLOCK/16)");
static_assert(NT % WN == 0 && WARPS_PER_MT % WN == 0, "warps per m-tile must divide evenly");
static_assert(kDimV % (NWARPS * 16) == 0, "value columns must split into pairs of 8-wide tiles per warp");
static_assert(THREADS % HB == 0 && TPR >= 1 && TPR <= 32 && (TPR & (TPR - 1)) == 0,
              "THREADS / HEADS_PER_BLOCK must be a power of two <= 32");
static_assert(BK % TPR == 0, "KEYS_PER_TILE must be a multiple of THREADS / HEADS_PER_BLOCK");
static_assert(MT * NV * 4 <= 128, "the O accumulator exceeds 128 floats per thread");
static_assert(KV_STAGES == 1 || KV_STAGES == 2, "KV_STAGES is 1 or 2");
static_assert(THREADS >= BK && THREADS >= HB, "one thread per key and per head row is assumed");

// Shared memory, in bytes from the start of the dynamic allocation. Every
// offset stays a multiple of 16 (cp.async and uint4 stores need it).
struct SmemLayout {
  unsigned q, k, raw, s, p, alpha, l, m, valid, total;
};

__device__ __forceinline__ SmemLayout smem_layout(bool fp8) {
  SmemLayout L;
  unsigned off = 0;
  L.q = off;     off += HB * ROW_BYTES;
  L.k = off;     off += (fp8 ? 1 : KV_STAGES) * BK * ROW_BYTES;   // FP8 dequantises into one tile
  L.raw = off;   off += fp8 ? KV_STAGES * BK * kFp8RecordBytes : 0;
  L.s = off;     off += KSPLIT * HB * SROW * 4;
  L.p = off;     off += HB * PROW * 2;
  L.alpha = off; off += HB * 4;
  L.l = off;     off += HB * 4;
  L.m = off;     off += HB * 4;
  L.valid = off; off += KV_STAGES * BK * 4;
  L.total = off;
  return L;
}

// Split-KV scratch: [header 256 B: nsplit] [lse parts] [O parts, 256-B aligned].
struct Workspace {
  int* header;
  float* lse;   // [rows * heads * nsplit]
  float* o;     // [rows * heads * nsplit * 512], normalised by each split's own l
};

__device__ __forceinline__ unsigned long long workspace_o_offset(long long parts) {
  return (256ull + 4ull * parts + 255ull) / 256ull * 256ull;
}

__device__ __forceinline__ Workspace workspace_view(void* base, long long parts) {
  unsigned char* w = static_cast<unsigned char*>(base);
  return Workspace{reinterpret_cast<int*>(w), reinterpret_cast<float*>(w + 256),
                   reinterpret_cast<float*>(w + workspace_o_offset(parts))};
}

// ---- small PTX wrappers ----
__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// 16-byte async copy; src_bytes = 0 reads nothing and zero-fills the destination.
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
               "r"(src_bytes)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void mma_bf16(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t r[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}

#if LDMATRIX
__device__ __forceinline__ void ldmatrix_x4(uint32_t r[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}

__device__ __forceinline__ void ldmatrix_x2(uint32_t r[2], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(smem_addr(p)));
}

#else
__device__ __forceinline__ uint32_t ld_u32(const __nv_bfloat16* p) {
  return *reinterpret_cast<const uint32_t*>(p);
}
#endif

__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}

__device__ __forceinline__ bool slot_valid(int slot, int num_slots) {
  return slot >= 0 && slot < num_slots;
}

// ---- the gather ----
// Starts the copies of one key tile: positions [key0, key0 + BK) of this
// query's index list. A position past key_end or with an invalid slot is
// zero-filled without reading the cache (unused slots hold NaN).
template <bool FP8>
__device__ __forceinline__ void issue_tile(const SparseMlaParams& p, const int* idx_row, int key0,
                                           int key_end, unsigned char* dst, int* valid) {
  constexpr int CHUNKS = FP8 ? FP8_CHUNKS : BF16_CHUNKS;
  constexpr int SRC_ROW = FP8 ? kFp8RecordBytes : kBf16RowBytes;
  constexpr int DST_ROW = FP8 ? kFp8RecordBytes : ROW_BYTES;
  const unsigned char* kv = static_cast<const unsigned char*>(p.kv);
  for (int c = threadIdx.x; c < BK * CHUNKS; c += THREADS) {
    const int r = c / CHUNKS;
    const int ch = c - r * CHUNKS;
    const int t = key0 + r;
    const int slot = t < key_end ? __ldg(idx_row + t) : -1;
    const bool ok = slot_valid(slot, p.num_slots);
    const unsigned char* src = ok ? kv + static_cast<size_t>(slot) * SRC_ROW + ch * 16 : kv;
    cp_async_16(dst + r * DST_ROW + ch * 16, src, ok ? 16 : 0);
  }
  if (threadIdx.x < BK) {
    const int t = key0 + threadIdx.x;
    const int slot = t < key_end ? __ldg(idx_row + t) : -1;
    valid[threadIdx.x] = slot_valid(slot, p.num_slots) ? 1 : 0;
  }
}

// FP8 records -> BF16 rows. e4m3 times a power-of-two scale is exact in bf16.
// Zero-filled (invalid) records dequantise to zeros.
__device__ __forceinline__ void dequant_tile(const unsigned char* raw, __nv_bfloat16* K) {
  constexpr int TASKS = kDimV / 16 + kDimRope / 8;   // 32 chunks of 16 e4m3, 8 chunks of 8 bf16
  for (int c = threadIdx.x; c < BK * TASKS; c += THREADS) {
    const int r = c / TASKS;
    const int ch = c - r * TASKS;
    const unsigned char* rec = raw + r * kFp8RecordBytes;
    __nv_bfloat16* dst = K + r * ROW;
    if (ch < kDimV / 16) {
      const uint4 v = *reinterpret_cast<const uint4*>(rec + ch * 16);
      const float sc = reinterpret_cast<const float*>(rec + kFp8ScalesOffset)[ch * 16 / kFp8ValuesPerScale];
      const uint32_t w[4] = {v.x, v.y, v.z, v.w};
      uint32_t o[8];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const __half2 lo(__nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(w[j] & 0xFFFFu), __NV_E4M3));
        const __half2 hi(__nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(w[j] >> 16), __NV_E4M3));
        const float2 flo = __half22float2(lo);
        const float2 fhi = __half22float2(hi);
        o[2 * j] = pack_bf16x2(flo.x * sc, flo.y * sc);
        o[2 * j + 1] = pack_bf16x2(fhi.x * sc, fhi.y * sc);
      }
      uint4* d = reinterpret_cast<uint4*>(dst + ch * 16);
      d[0] = make_uint4(o[0], o[1], o[2], o[3]);
      d[1] = make_uint4(o[4], o[5], o[6], o[7]);
    } else {
      const int j = ch - kDimV / 16;
      *reinterpret_cast<uint4*>(dst + kDimV + j * 8) =
          *reinterpret_cast<const uint4*>(rec + kFp8RopeOffset + j * 16);
    }
  }
}

// ---- the three steps of one tile ----

// Partial scores (unscaled) of this warp's tiles into Ss[ks][head][key].
__device__ __forceinline__ void qk_tile(const __nv_bfloat16* Qs, const __nv_bfloat16* Ks, float* Ss,
                                        int warp, int g, int t4) {
  const int mt = warp / WARPS_PER_MT;
  const int wr = warp % WARPS_PER_MT;
  const int wn = wr % WN;
  const int ks = wr / WN;
  const int k_lo = ks * QK_STEPS / KSPLIT;
  const int k_hi = (ks + 1) * QK_STEPS / KSPLIT;
  const int n_first = wn * NT_PER_WARP * 8;

  float acc[NT_PER_WARP][4];
#pragma unroll
  for (int n = 0; n < NT_PER_WARP; ++n) acc[n][0] = acc[n][1] = acc[n][2] = acc[n][3] = 0.f;

#if LDMATRIX
  // A (Q): lanes 0-15 address rows 0-15 of the m-tile at column d, lanes 16-31
  // the same rows at d + 8, giving a0..a3 in mma order. B (K rows = n): lanes
  // 0-7 keys 0-7 at d, 8-15 keys 0-7 at d + 8, 16-23 keys 8-15 at d, 24-31 keys
  // 8-15 at d + 8: registers 0,1 are one n-tile's b0,b1 and 2,3 the next one's.
  const int lane = threadIdx.x & 31;
  const __nv_bfloat16* qa = Qs + (mt * 16 + (lane & 15)) * ROW + (lane >> 4) * 8;
  const __nv_bfloat16* kb = Ks + (n_first + (lane & 7) + (lane >> 4) * 8) * ROW + ((lane >> 3) & 1) * 8;
  const __nv_bfloat16* kb_one = Ks + (n_first + (lane & 7)) * ROW + ((lane >> 3) & 1) * 8;
#pragma unroll 2
  for (int kk = k_lo; kk < k_hi; ++kk) {
    const int d = kk * 16;
    uint32_t a[4];
    ldmatrix_x4(a, qa + d);
#pragma unroll
    for (int n = 0; n + 1 < NT_PER_WARP; n += 2) {
      uint32_t b[4];
      ldmatrix_x4(b, kb + n * 8 * ROW + d);
      mma_bf16(acc[n], a, b[0], b[1]);
      mma_bf16(acc[n + 1], a, b[2], b[3]);
    }
    if constexpr (NT_PER_WARP % 2 == 1) {
      uint32_t b[2];
      ldmatrix_x2(b, kb_one + (NT_PER_WARP - 1) * 8 * ROW + d);
      mma_bf16(acc[NT_PER_WARP - 1], a, b[0], b[1]);
    }
  }
#else
  const __nv_bfloat16* qa = Qs + (mt * 16 + g) * ROW + 2 * t4;
  const __nv_bfloat16* kb = Ks + (n_first + g) * ROW + 2 * t4;
#pragma unroll 2
  for (int kk = k_lo; kk < k_hi; ++kk) {
    const int d = kk * 16;
    const uint32_t a[4] = {ld_u32(qa + d), ld_u32(qa + 8 * ROW + d), ld_u32(qa + d + 8),
                           ld_u32(qa + 8 * ROW + d + 8)};
#pragma unroll
    for (int n = 0; n < NT_PER_WARP; ++n) {
      const __nv_bfloat16* kp = kb + n * 8 * ROW + d;
      mma_bf16(acc[n], a, ld_u32(kp), ld_u32(kp + 8));
    }
  }
#endif

  float* s0 = Ss + (ks * HB + mt * 16 + g) * SROW + n_first + 2 * t4;
#pragma unroll
  for (int n = 0; n < NT_PER_WARP; ++n) {
    *reinterpret_cast<float2*>(s0 + n * 8) = make_float2(acc[n][0], acc[n][1]);
    *reinterpret_cast<float2*>(s0 + 8 * SROW + n * 8) = make_float2(acc[n][2], acc[n][3]);
  }
}

// Online softmax of one tile for head row `srow` (TPR threads share it; all of
// them keep identical copies of the running max m and sum l). Writes P (bf16)
// and the factor the row's O must be rescaled by. The scores are read twice
// from shared memory rather than held in registers (the O accumulator needs them).
__device__ __forceinline__ void softmax_tile(const float* Ss, const int* valid, __nv_bfloat16* Ps,
                                             float* s_alpha, int srow, int slane, float scale_log2,
                                             float& m_run, float& l_run) {
  auto score = [&](int key) {   // scaled to the exp2 domain; -inf where the position is invalid
    float s = 0.f;
#pragma unroll
    for (int ks = 0; ks < KSPLIT; ++ks) s += Ss[(ks * HB + srow) * SROW + key];
    return valid[key] ? s * scale_log2 : -INFINITY;
  };
  float tile_max = -INFINITY;
#pragma unroll
  for (int k = 0; k < KPT; ++k) tile_max = fmaxf(tile_max, score(slane + k * TPR));
#pragma unroll
  for (int off = TPR / 2; off > 0; off >>= 1)
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, off));

  const float m_new = fmaxf(m_run, tile_max);
  // Nothing valid yet: keep O (zero) as it is and avoid (-inf) - (-inf).
  const float alpha = m_new == -INFINITY ? 1.f : exp2f(m_run - m_new);
  float sum = 0.f;
#pragma unroll
  for (int k = 0; k < KPT; ++k) {
    const float s = score(slane + k * TPR);
    const float pr = s == -INFINITY ? 0.f : exp2f(s - m_new);
    Ps[srow * PROW + slane + k * TPR] = __float2bfloat16(pr);
    sum += pr;   // l sums the fp32 values: lse stays fp32-accurate
  }
#pragma unroll
  for (int off = TPR / 2; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);

  l_run = l_run * alpha + sum;
  m_run = m_new;
  if (slane == 0) s_alpha[srow] = alpha;
}

// O = alpha * O + P V for this warp's columns. In the m16n8 C layout a thread
// holds rows g and g + 8 of each m-tile, so the rescale needs two factors.
__device__ __forceinline__ void pv_tile(float (&o)[MT][NV][4], const __nv_bfloat16* Ps,
                                        const __nv_bfloat16* Ks, const float* s_alpha, int warp,
                                        int lane, int g, int t4) {
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
    const float a_lo = s_alpha[mt * 16 + g];
    const float a_hi = s_alpha[mt * 16 + g + 8];
#pragma unroll
    for (int n = 0; n < NV; ++n) {
      o[mt][n][0] *= a_lo;
      o[mt][n][1] *= a_lo;
      o[mt][n][2] *= a_hi;
      o[mt][n][3] *= a_hi;
    }
  }

  const int col0 = warp * COLS_PER_WARP;
#pragma unroll
  for (int kk = 0; kk < BK / 16; ++kk) {
    uint32_t a[MT][4];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
#if LDMATRIX
      ldmatrix_x4(a[mt], Ps + (mt * 16 + (lane & 15)) * PROW + kk * 16 + (lane >> 4) * 8);
#else
      const __nv_bfloat16* pa = Ps + (mt * 16 + g) * PROW + kk * 16 + 2 * t4;
      a[mt][0] = ld_u32(pa);
      a[mt][1] = ld_u32(pa + 8 * PROW);
      a[mt][2] = ld_u32(pa + 8);
      a[mt][3] = ld_u32(pa + 8 * PROW + 8);
#endif
    }
    // ldmatrix.x4.trans: lanes 0-7 / 8-15 address keys 0-7 / 8-15 of columns
    // [c, c+8), lanes 16-31 the same keys of [c+8, c+16): registers 0,1 are the
    // B fragment of one n-tile, 2,3 of the next.
    const __nv_bfloat16* v = Ks + (kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * ROW + col0 + (lane >> 4) * 8;
#pragma unroll
    for (int np = 0; np < NV / 2; ++np) {
      uint32_t b[4];
      ldmatrix_x4_trans(b, v + np * 16);
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        mma_bf16(o[mt][2 * np], a[mt], b[0], b[1]);
        mma_bf16(o[mt][2 * np + 1], a[mt], b[2], b[3]);
      }
    }
  }
}

// ---- one block: (query row, head group, split) ----
// One body for both cache formats (a branch per tile, not two inlined copies:
// two copies of the main loop made the register allocator spill).
__device__ __forceinline__ void attend(const SparseMlaParams& p, unsigned char* smem) {
  const bool fp8 = p.kv_fp8 != 0;
  const SmemLayout L = smem_layout(fp8);
  __nv_bfloat16* Qs = reinterpret_cast<__nv_bfloat16*>(smem + L.q);
  unsigned char* k_base = smem + L.k;
  unsigned char* raw_base = smem + L.raw;
  float* Ss = reinterpret_cast<float*>(smem + L.s);
  __nv_bfloat16* Ps = reinterpret_cast<__nv_bfloat16*>(smem + L.p);
  float* s_alpha = reinterpret_cast<float*>(smem + L.alpha);
  float* s_l = reinterpret_cast<float*>(smem + L.l);
  float* s_m = reinterpret_cast<float*>(smem + L.m);
  int* s_valid = reinterpret_cast<int*>(smem + L.valid);

  const int tid = threadIdx.x;
  const int warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, t4 = lane & 3;

  // Block order: head group fastest, so the blocks that gather the same rows run together (L2 reuse).
  const int heads = p.heads;
  const int head_groups = (heads + HB - 1) / HB;
  const int rows = p.batch * p.s_q;
  const int nsplit = gridDim.x / (head_groups * rows);
  int bid = blockIdx.x;
  const int hg = bid % head_groups;
  bid /= head_groups;
  const int split = bid % nsplit;
  const int row = bid / nsplit;   // b * s_q + i
  const int b = row / p.s_q;
  const int i = row - b * p.s_q;
  const int h0 = hg * HB;

  int n_eff = p.topk;
  if (p.topk_length != nullptr) n_eff = min(max(p.topk_length[b], 0), p.topk);
  const int tiles_all = (n_eff + BK - 1) / BK;
  const int tiles_per_split = (tiles_all + nsplit - 1) / nsplit;
  const int tile_begin = min(split * tiles_per_split, tiles_all);
  const int tiles = min(tile_begin + tiles_per_split, tiles_all) - tile_begin;
  const int key_base = tile_begin * BK;
  const int* idx_row = p.indices + static_cast<size_t>(row) * p.topk;

  // Q tile; rows past the last head are zeros (their results are never written).
  for (int c = tid; c < HB * BF16_CHUNKS; c += THREADS) {
    const int r = c / BF16_CHUNKS;
    const int ch = c - r * BF16_CHUNKS;
    uint4 v = make_uint4(0u, 0u, 0u, 0u);
    if (h0 + r < heads)
      v = __ldg(reinterpret_cast<const uint4*>(p.q + (static_cast<size_t>(row) * heads + h0 + r) * kDimQK) + ch);
    *reinterpret_cast<uint4*>(Qs + r * ROW + ch * 8) = v;
  }

  float o[MT][NV][4];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int n = 0; n < NV; ++n) o[mt][n][0] = o[mt][n][1] = o[mt][n][2] = o[mt][n][3] = 0.f;

  const int srow = tid / TPR, slane = tid % TPR;
  float m_run = -INFINITY, l_run = 0.f;
  const float scale_log2 = p.scale * kLog2e;

  auto stage_dst = [&](int stage) {
    return fp8 ? raw_base + stage * BK * kFp8RecordBytes : k_base + stage * BK * ROW_BYTES;
  };
  auto issue = [&](int tile, int stage) {
    if (fp8)
      issue_tile<true>(p, idx_row, key_base + tile * BK, n_eff, stage_dst(stage), s_valid + stage * BK);
    else
      issue_tile<false>(p, idx_row, key_base + tile * BK, n_eff, stage_dst(stage), s_valid + stage * BK);
  };

  if (tiles > 0) issue(0, 0);
  cp_async_commit();
  for (int j = 0; j < tiles; ++j) {
    const int stage = KV_STAGES == 2 ? (j & 1) : 0;
    if (KV_STAGES == 2) {
      if (j + 1 < tiles) issue(j + 1, (j + 1) & 1);
      cp_async_commit();
      cp_async_wait<1>();   // everything but the newest group: tile j has landed
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();        // tile j (and, at j = 0, the Q tile) visible to all threads

    const __nv_bfloat16* Ks;
    if (fp8) {
      dequant_tile(stage_dst(stage), reinterpret_cast<__nv_bfloat16*>(k_base));
      __syncthreads();
      Ks = reinterpret_cast<const __nv_bfloat16*>(k_base);
    } else {
      Ks = reinterpret_cast<const __nv_bfloat16*>(stage_dst(stage));
    }

    qk_tile(Qs, Ks, Ss, warp, g, t4);
    __syncthreads();
    softmax_tile(Ss, s_valid + stage * BK, Ps, s_alpha, srow, slane, scale_log2, m_run, l_run);
    __syncthreads();
    pv_tile(o, Ps, Ks, s_alpha, warp, lane, g, t4);
    __syncthreads();        // K, P and alpha are free for the next tile

    if (KV_STAGES == 1 && j + 1 < tiles) {
      issue(j + 1, 0);
      cp_async_commit();
    }
  }

  if (slane == 0) {
    s_l[srow] = l_run;
    s_m[srow] = m_run;
  }
  __syncthreads();

  const Workspace ws = workspace_view(p.workspace, static_cast<long long>(rows) * heads * nsplit);
  const int col0 = warp * COLS_PER_WARP + 2 * t4;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int r = mt * 16 + g + half * 8;
      const int h = h0 + r;
      if (h >= heads) continue;
      const float l = s_l[r];
      const float inv = l > 0.f ? 1.f / l : 0.f;
      const size_t rh = static_cast<size_t>(row) * heads + h;
      if (nsplit == 1) {
        __nv_bfloat16* dst = p.out + rh * kDimV + col0;
#pragma unroll
        for (int n = 0; n < NV; ++n)
          *reinterpret_cast<__nv_bfloat162*>(dst + n * 8) =
              __floats2bfloat162_rn(o[mt][n][2 * half] * inv, o[mt][n][2 * half + 1] * inv);
      } else {
        float* dst = ws.o + (rh * nsplit + split) * kDimV + col0;
#pragma unroll
        for (int n = 0; n < NV; ++n)
          *reinterpret_cast<float2*>(dst + n * 8) =
              make_float2(o[mt][n][2 * half] * inv, o[mt][n][2 * half + 1] * inv);
      }
    }
  }
  if (tid < HB && h0 + tid < heads) {
    const int h = h0 + tid;
    const float l = s_l[tid];
    const float lse = (s_m[tid] + log2f(l)) * kLn2;   // natural log, scale included
    if (nsplit == 1)
      p.lse[(static_cast<size_t>(b) * heads + h) * p.s_q + i] = l > 0.f ? lse : INFINITY;
    else
      ws.lse[(static_cast<size_t>(row) * heads + h) * nsplit + split] = l > 0.f ? lse : -INFINITY;
  }
  if (nsplit > 1 && blockIdx.x == 0 && tid == 0) ws.header[0] = nsplit;
}

}  // namespace

// ---- the ABI (include/autoresearch/harness/launch_plan.h) ----

extern "C" __global__ void ar_plan(const SparseMlaParams p, int num_sms, ar::LaunchPlan* plan) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  ar::LaunchPlan pl = {};
  if (p.batch < 1 || p.s_q < 1 || p.heads < 1 || p.topk < 1 || p.num_slots < 1 || num_sms < 1) {
    pl.status = 1;   // shapes this kernel does not handle
    *plan = pl;
    return;
  }
  const long long head_groups = (p.heads + HB - 1) / HB;
  const long long rows = static_cast<long long>(p.batch) * p.s_q;
  const long long base = rows * head_groups;
  const long long tiles = (p.topk + BK - 1) / BK;

  // Split the top-k list until the grid fills about SPLIT_WAVES waves of one block per SM.
  long long nsplit = 1;
  if (SPLIT_WAVES > 0) {
    nsplit = static_cast<long long>(SPLIT_WAVES) * num_sms / base;
    nsplit = max(1ll, min(nsplit, min(tiles, static_cast<long long>(kMaxSplits))));
  }
  const long long blocks = base * nsplit;
  if (blocks > 0x7fffffffll || rows * p.heads > 0x7fffffffll) {
    pl.status = 2;   // grid too large
    *plan = pl;
    return;
  }

  pl.num_stages = nsplit > 1 ? 2 : 1;
  pl.stage[0].grid[0] = static_cast<unsigned>(blocks);
  pl.stage[0].grid[1] = pl.stage[0].grid[2] = 1;
  pl.stage[0].block[0] = THREADS;
  pl.stage[0].block[1] = pl.stage[0].block[2] = 1;
  pl.stage[0].shared_bytes = smem_layout(p.kv_fp8 != 0).total;
  if (nsplit > 1) {
    const long long parts = rows * p.heads * nsplit;
    pl.workspace_bytes = workspace_o_offset(parts) + 4ull * kDimV * parts;
    pl.stage[1].grid[0] = static_cast<unsigned>(rows * p.heads);
    pl.stage[1].grid[1] = pl.stage[1].grid[2] = 1;
    pl.stage[1].block[0] = kDimV / 4;
    pl.stage[1].block[1] = pl.stage[1].block[2] = 1;
    pl.stage[1].shared_bytes = 0;
  }
  *plan = pl;
}

extern "C" __global__ void __launch_bounds__(THREADS, 1) ar_stage0(const SparseMlaParams p) {
  extern __shared__ __align__(16) unsigned char smem[];
  attend(p, smem);
}

// Merges the splits of one (query row, head): weights exp(lse_s - max), splits
// with no valid position (lse = -inf) skipped, so their zeros never meet a NaN.
extern "C" __global__ void __launch_bounds__(kDimV / 4) ar_stage1(const SparseMlaParams p) {
  const int nsplit = static_cast<const int*>(p.workspace)[0];
  const long long parts = static_cast<long long>(p.batch) * p.s_q * p.heads * nsplit;
  const Workspace ws = workspace_view(p.workspace, parts);
  const int rh = blockIdx.x;   // (b * s_q + i) * heads + h
  const int row = rh / p.heads, h = rh - row * p.heads;
  const int b = row / p.s_q, i = row - b * p.s_q;
  const float* lse_part = ws.lse + static_cast<size_t>(rh) * nsplit;
  const int c = threadIdx.x * 4;
  __nv_bfloat16* out = p.out + static_cast<size_t>(rh) * kDimV + c;
  float* lse_out = p.lse + (static_cast<size_t>(b) * p.heads + h) * p.s_q + i;

  float m = -INFINITY;
  for (int s = 0; s < nsplit; ++s) m = fmaxf(m, lse_part[s]);
  if (m == -INFINITY) {
    const __nv_bfloat162 zero = __floats2bfloat162_rn(0.f, 0.f);
    reinterpret_cast<__nv_bfloat162*>(out)[0] = zero;
    reinterpret_cast<__nv_bfloat162*>(out)[1] = zero;
    if (threadIdx.x == 0) *lse_out = INFINITY;
    return;
  }
  float w_sum = 0.f;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  for (int s = 0; s < nsplit; ++s) {
    const float ls = lse_part[s];
    if (ls == -INFINITY) continue;
    const float w = expf(ls - m);
    const float4 v = *reinterpret_cast<const float4*>(ws.o + (static_cast<size_t>(rh) * nsplit + s) * kDimV + c);
    w_sum += w;
    acc[0] += w * v.x;
    acc[1] += w * v.y;
    acc[2] += w * v.z;
    acc[3] += w * v.w;
  }
  const float inv = 1.f / w_sum;
  reinterpret_cast<__nv_bfloat162*>(out)[0] = __floats2bfloat162_rn(acc[0] * inv, acc[1] * inv);
  reinterpret_cast<__nv_bfloat162*>(out)[1] = __floats2bfloat162_rn(acc[2] * inv, acc[3] * inv);
  if (threadIdx.x == 0) *lse_out = m + logf(w_sum);
}
