#pragma once
// Pieces of the sparse_mla problem (protected harness code, never compiled
// into a candidate): the workload's shape, the random layout of the KV pool,
// the input generators, the independent GPU reference, the comparisons and the
// float64 oracle. problem.cu ties them together behind ar::harness::Problem.
#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#if defined(__CUDACC__)
#define SPARSE_MLA_HD __host__ __device__
#else
#define SPARSE_MLA_HD
#endif

namespace sparse_mla {

// ---- workload.cpp ----

// The input distributions (each verify runs all of them; inputs.cu says why
// the honest kernel passes each one within the manifest's tolerances).
enum Distribution : int {
  kRandn = 0,       // FlashMLA's test data: q ~ randn clamped to [-1, 1], kv ~ randn / 10, 1% of indices -1
  kUniform = 1,     // uniform values, 5% invalid indices of every kind (-1, other negatives, >= num_slots),
                    // one query row with no valid index, one request with topk_length 0
  kPeaked = 2,      // large-magnitude rope scores (softmax peaked, lse ~ 60-90), one row with one valid index
  kScaledUp = 3,    // q x8 (|q| <= 8) and the keys' rope part x8: scores ~8x larger, lse ~20
  kScaledDown = 4,  // q and kv / 64: tiny values, an almost uniform softmax
  kOutliers = 5,    // three keys per row with huge scores: at the END of the valid list, in the middle, and
                    // (with topk_length) the first position past it, which must be ignored
  kAllEqual = 6,    // every key scores the same (q's latent part 0, one rope vector for all keys):
                    // a uniform softmax over distinct values
  kDistributions = 7,
};
// kOutliers: the first kOutlierTokens positions of each request's context hold the outlier keys.
inline constexpr int kOutlierTokens = 3;
const char* distribution_name(int d);

struct Shape {
  int batch = 0, s_q = 1, heads = 128, topk = 2048, context = 0, page_size = 64;
  bool fp8 = false, varlen = false, use_topk_length = false;
  float scale = 0.13523f;
  int ctx_max = 0;          // the longest context one request can draw (varlen: 2 * context)
  long long pages = 0;      // pages in the pool (room for ctx_max per request, plus spares)
  long long num_slots = 0;  // pages * page_size

  size_t record_bytes() const { return fp8 ? 656 : 1152; }
  long long rows() const { return static_cast<long long>(batch) * s_q; }
  size_t q_elems() const { return static_cast<size_t>(rows()) * heads * 576; }
  size_t idx_elems() const { return static_cast<size_t>(rows()) * topk; }
  size_t out_elems() const { return static_cast<size_t>(rows()) * heads * 512; }
  size_t lse_elems() const { return static_cast<size_t>(rows()) * heads; }
  size_t pool_bytes() const { return static_cast<size_t>(num_slots) * record_bytes(); }
};

// Reads and validates the workload params; throws ar::harness::ProblemError naming the field.
Shape parse_shape(const nlohmann::json& params);
// The params parse_shape() reads (for `verify --dry-run`).
std::vector<std::string> param_names();

// Per-request contexts and where their pages lie in the pool, drawn per trial.
// Request b owns logical pages [page_offset[b], page_offset[b+1]); logical page
// L sits at physical page perm(L), a keyed bijection of [0, pages).
struct PoolLayout {
  std::vector<int> context;            // [batch]
  std::vector<long long> page_offset;  // [batch + 1]
  long long used_pages = 0;
  uint64_t perm_key = 0;
};
PoolLayout draw_pool_layout(const Shape& s, uint64_t seed);
std::vector<int> draw_topk_length(const Shape& s, uint64_t seed, int distribution);

// splitmix64's finaliser: the one mixing function of every generator here.
SPARSE_MLA_HD inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A keyed bijection of [0, n) without a table (the pool's shuffled page table
// and each row's unique positions): a 4-round Feistel network on the smallest
// even-bit domain >= n, cycle-walked back into [0, n).
SPARSE_MLA_HD inline int feistel_half_bits(uint64_t n) {
  int bits = 0;
  while ((1ull << bits) < n) ++bits;
  return bits < 2 ? 1 : (bits + 1) / 2;
}
SPARSE_MLA_HD inline uint64_t feistel_round_key(uint64_t key, int round) {
  return key ^ (0xD6E8FEB86659FD93ull * static_cast<uint64_t>(round + 1));
}
SPARSE_MLA_HD inline uint64_t permute(uint64_t x, uint64_t n, uint64_t key) {
  const int hb = feistel_half_bits(n);
  const uint64_t mask = (1ull << hb) - 1;
  do {
    uint64_t l = x >> hb, r = x & mask;
    for (int k = 0; k < 4; ++k) {
      const uint64_t nl = r;
      r = l ^ (mix64(r ^ feistel_round_key(key, k)) & mask);
      l = nl;
    }
    x = (l << hb) | r;
  } while (x >= n);
  return x;
}
SPARSE_MLA_HD inline uint64_t unpermute(uint64_t y, uint64_t n, uint64_t key) {
  const int hb = feistel_half_bits(n);
  const uint64_t mask = (1ull << hb) - 1;
  do {
    uint64_t l = y >> hb, r = y & mask;
    for (int k = 3; k >= 0; --k) {
      const uint64_t nr = l;
      l = r ^ (mix64(l ^ feistel_round_key(key, k)) & mask);
      r = nr;
    }
    y = (l << hb) | r;
  } while (y >= n);
  return y;
}

// ---- inputs.cu (all on the legacy default stream) ----

struct DeviceLayout {          // PoolLayout on the device
  const int* context;
  const long long* page_offset;
  long long used_pages;
  uint64_t perm_key;
};

// The pool starts all NaN; write_records() then writes the record of every
// in-range slot a row of `indices` ([rows][topk]) names, for the pool's seed
// and distribution (idempotent: a record depends only on them and its slot).
void clear_pool(void* kv, const Shape& s);
void write_records(void* kv, const Shape& s, const DeviceLayout& layout, uint64_t seed, int distribution,
                   const int* indices);
void generate_q(__nv_bfloat16* q, const Shape& s, uint64_t seed, int distribution);
// Rows with index -2 for `empty_row` / `single_row` have no such special row.
// `topk_length` (device, nullable) places kOutliers' keys relative to each request's valid length.
void generate_indices(int* indices, const Shape& s, const DeviceLayout& layout, uint64_t seed,
                      int distribution, long long empty_row, long long single_row, const int* topk_length);

// ---- reference.cu ----

struct ReferenceArgs {
  const __nv_bfloat16* q;
  const void* kv;
  const int* indices;
  const int* topk_length;      // nullable
  float* out;                  // [rows, heads, 512] fp32
  float* lse;                  // [batch, heads, s_q]
  int batch, s_q, heads, topk, num_slots, fp8;
  float scale;
};
void run_reference_kernel(const ReferenceArgs& a);

// Copies the cache records of one index row into `staging` ([topk][record_bytes]),
// zeros where the index is invalid (never reading an unused slot).
void gather_records(const void* kv, const int* index_row, int topk, int num_slots, int record_bytes,
                    unsigned char* staging);

// ---- compare.cu ----

struct CompareStats {
  long long elements = 0;
  long long mismatches = 0;    // finite elements outside both abs and rel
  long long nonfinite = 0;     // NaN/Inf where the reference differs (or NaN anywhere)
  double max_abs = 0, max_rel = 0;
  double dot = 0, norm = 0;    // cosine terms over finite pairs: sum xy, sum (x^2 + y^2)
  long long first_bad = -1;    // flat index of the first failing element
};

// Every element of a candidate tensor against the fp32 reference, on the GPU.
CompareStats compare_bf16(const __nv_bfloat16* cand, const float* ref, size_t n, double abs_tol, double rel_tol);
CompareStats compare_f32(const float* cand, const float* ref, size_t n, double abs_tol, double rel_tol);

// A 128-bit hash of each buffer's bits (order-aware), computed on the GPU in
// one launch into memory zeroed right before it, copied to the host at once;
// "h1:h2:..." in order. `salt` keys it (the problem keys it with a secret).
struct HashedBuffer {
  const void* data;
  size_t bytes;
};
std::string fingerprint(const std::vector<HashedBuffer>& buffers, uint64_t salt);

// ---- oracle.cpp (float64 on the host) ----

// The data of one query row (b, i), copied off the device.
struct OracleRow {
  int b = 0, i = 0;
  std::vector<int> heads;                 // the heads checked
  std::vector<uint16_t> q;                // [heads.size()][576] bf16 bits
  std::vector<int> indices;               // [topk]
  int n_eff = 0;                          // positions < n_eff count (topk_length)
  std::vector<unsigned char> records;     // [topk][record_bytes], zeros where invalid
};

// out [heads.size()][512] and lse [heads.size()] in float64; lse = +inf, out = 0 when nothing is valid.
// logit_scale [heads.size()], when asked for: the largest scale * sum_d |q_d k_d|
// over the valid positions, the size of the terms a float32 lse is rounded from.
void oracle_row(const OracleRow& row, const Shape& s, std::vector<double>* out, std::vector<double>* lse,
                std::vector<double>* logit_scale = nullptr);

// oracle_row() for every row at once (each on its own threads), with the logit scales.
struct OracleResult {
  std::vector<double> out, lse, logit_scale;
};
void oracle_each_row(const std::vector<OracleRow>& rows, const Shape& s, std::vector<OracleResult>* results);

// The pass rule of one element (FlashMLA's), the one definition the GPU
// comparison and the float64 rows share: a non-finite value must match the
// reference's exactly (+inf with +inf, -inf with -inf; NaN never passes);
// a finite pair passes within abs_tol or within rel_tol * |ref|.
struct ElementCheck {
  bool finite_pair = true;
  bool pass = true;
  double abs_err = 0, rel_err = 0;   // rel_err: 0 when ref is 0 (then abs decides)
};
SPARSE_MLA_HD inline ElementCheck check_element(double cand, double ref, double abs_tol, double rel_tol) {
  ElementCheck e;
  const bool cand_finite = cand - cand == 0.0;   // false for NaN and +-inf (no fast-math here)
  const bool ref_finite = ref - ref == 0.0;
  if (!cand_finite || !ref_finite) {
    e.finite_pair = false;
    e.pass = cand == ref;                        // NaN == NaN is false
    return e;
  }
  const double mag = ref < 0 ? -ref : ref;
  e.abs_err = cand > ref ? cand - ref : ref - cand;
  e.rel_err = mag > 0 ? e.abs_err / mag : 0.0;
  e.pass = e.abs_err <= abs_tol || e.abs_err <= rel_tol * mag;
  return e;
}

double bf16_to_double(uint16_t bits);

}  // namespace sparse_mla
