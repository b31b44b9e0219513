// The sparse_mla problem (protected): buffers per rotation, inputs from a seed,
// the fp32 GPU reference for every element, the float64 oracle for sampled
// rows, and the comparisons (sparse_mla.md "Correctness").
//
// Memory: the KV pool (up to ~47 GB at batch 256 x 160k tokens) is allocated
// once per workload and shared by every rotation; rotations own their q,
// indices, topk_length, outputs and reference outputs. A randomize() with a
// distribution other than the pool's draws a fresh pool (contexts, shuffled
// pages, every slot NaN) and re-derives every rotation's indices from that
// rotation's own seed, writing the records they name, so each rotation always
// holds valid, consistent inputs; one with the pool's distribution (a bench's
// rotations, its re-randomised checks) keeps the pool, redraws only that
// rotation's q, indices and topk_length, and writes the records its new
// indices name, so the other rotations' inputs stay as they were.
//
// The reference's results never stay readable on the device while a candidate
// could run: run_reference() copies them to the host and fills its device
// buffers with NaN; check() puts them back, compares, and fills them with NaN
// again. A candidate can neither copy the answer from there nor plant its own
// (reference_fingerprint() lets the harness prove the NaN was not touched).
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "autoresearch/harness/problem.h"
#include "cuda/cuda_check.h"
#include "problem_parts.h"
#include "sparse_mla_params.h"

namespace sparse_mla {

namespace {

using ar::harness::OutputCheck;
using ar::harness::ProblemError;
using ar::harness::Tolerance;

// The GPU reference must sit well inside the tolerance the candidate gets.
constexpr double kReferenceToleranceFactor = 0.25;
// The float32 reference's lse is rounded from logits far larger than itself
// (an lse near 0 from scores of +-15): its error scales with them, not with
// the lse. Its check against float64 allows this many float32 epsilons of the
// row's largest scale * sum_d |q_d k_d| (about 15 for randn inputs). On the
// H200 a reference lse near 0 was 3.8e-6 off, a couple of such epsilons, and
// the old bar of 0.25 x 1e-5 rejected it, and with it two honest candidates
// (spaces/README.md). A broken reference is off by far more.
constexpr double kReferenceLseEpsilons = 16;
constexpr double kFloat32Epsilon = 1.1920928955078125e-07;
constexpr int kOracleRows = 3;       // random query rows per check, plus the special rows
constexpr int kOracleHeads = 4;      // heads per row: 0, the last, two random
constexpr size_t kMemoryMargin = size_t{1} << 30;

// Salts for the independent streams drawn from one seed.
constexpr uint64_t kSaltPool = 0x504f4f4cull, kSaltQ = 0x51ull, kSaltIdx = 0x494458ull,
                   kSaltEmpty = 0x454dull, kSaltSingle = 0x5347ull;

double gib(size_t bytes) { return static_cast<double>(bytes) / (1u << 30); }

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = nullptr; o.bytes_ = 0; }
  ~DeviceBuffer() { reset(); }

  void allocate(size_t bytes, const char* what) {
    reset();
    if (bytes == 0) return;
    const cudaError_t e = cudaMalloc(&ptr_, bytes);
    if (e != cudaSuccess) {
      ptr_ = nullptr;
      if (ar::harness::is_sticky(e)) ar::harness::throw_cuda_error(e, "fault", "cudaMalloc", __FILE__, __LINE__);
      (void)cudaGetLastError();
      char text[160];
      std::snprintf(text, sizeof text, "cannot allocate %.2f GiB on the device for %s (%s)", gib(bytes), what,
                    cudaGetErrorString(e));
      throw ProblemError(text);
    }
    bytes_ = bytes;
  }
  void reset() {
    if (ptr_) AR_CUDA_WARN(cudaFree(ptr_));
    ptr_ = nullptr;
    bytes_ = 0;
  }
  template <typename T>
  T* as() const { return static_cast<T*>(ptr_); }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

struct Rotation {
  DeviceBuffer q, indices, topk_length, out, lse, ref_out, ref_lse;
  std::vector<float> host_ref_out, host_ref_lse;   // the reference's results, off the device
  bool reference_valid = false;                     // for the current inputs
  SparseMlaParams params{};
  bool randomized = false;
  uint64_t seed = 0;
  int distribution = 0;
  long long empty_row = -2, single_row = -2;   // -2: none
  std::vector<int> host_topk_length;
};

OutputCheck finish(const std::string& name, const CompareStats& s, const Tolerance& tol, std::string detail) {
  OutputCheck c;
  c.output = name;
  c.elements = s.elements;
  c.mismatches = s.mismatches;
  c.nonfinite = s.nonfinite;
  c.max_abs_err = s.max_abs;
  c.max_rel_err = s.max_rel;
  c.cosine_diff = s.norm > 0 ? 1.0 - 2.0 * s.dot / s.norm : 0.0;   // FlashMLA's / DeepGEMM's calc_diff
  const bool cosine_ok = tol.cosine < 0 || c.cosine_diff <= tol.cosine;
  c.pass = s.mismatches == 0 && s.nonfinite == 0 && cosine_ok;
  c.detail = std::move(detail);
  if (c.detail.empty() && !cosine_ok) {
    char text[96];
    std::snprintf(text, sizeof text, "1 - cos = %.3g > %.3g", c.cosine_diff, tol.cosine);
    c.detail = text;
  }
  return c;
}

Tolerance scaled(Tolerance t, double factor) {
  t.abs *= factor;
  t.rel *= factor;
  if (t.cosine >= 0) t.cosine *= factor;
  return t;
}

std::string value_text(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

// One output over the float64 rows, built element by element on the host.
struct HostCheck {
  CompareStats stats;
  std::string detail;
  // where() names the element; called only for the first failure.
  template <typename Where>
  void add(double cand, double ref, const Tolerance& tol, Where where) {
    const ElementCheck k = check_element(cand, ref, tol.abs, tol.rel);
    ++stats.elements;
    if (!k.pass) {
      if (k.finite_pair) ++stats.mismatches;
      else ++stats.nonfinite;
      if (detail.empty()) detail = where() + "=" + value_text(cand) + " float64=" + value_text(ref);
    }
    if (!k.finite_pair) return;
    stats.max_abs = std::max(stats.max_abs, k.abs_err);
    stats.max_rel = std::max(stats.max_rel, k.rel_err);
    stats.dot += cand * ref;
    stats.norm += cand * cand + ref * ref;
  }
};

const Tolerance& find_tolerance(const std::vector<Tolerance>& tolerances, const char* output) {
  for (const auto& t : tolerances)
    if (t.output == output) return t;
  throw ProblemError(std::string("no tolerance for output '") + output +
                     "' in the request (sparse_mla checks 'out' and 'lse')");
}

template <typename T>
T fetch(const T* device_ptr) {
  T v{};
  AR_CUDA("problem_error", cudaMemcpy(&v, device_ptr, sizeof v, cudaMemcpyDeviceToHost));
  return v;
}

// Keys the fingerprints: a candidate cannot know it, so it cannot shape a
// change that keeps a fingerprint.
uint64_t process_secret() {
  std::random_device entropy;
  return (static_cast<uint64_t>(entropy()) << 32) ^ entropy();
}

class SparseMlaProblem final : public ar::harness::Problem {
 public:
  ~SparseMlaProblem() override { release(); }

  std::vector<std::string> output_names() const override { return {"out", "lse"}; }
  std::vector<std::string> param_names() const override { return sparse_mla::param_names(); }

  // What one rotation makes the kernel touch: its inputs and outputs, and the
  // cache rows it gathers (distinct per rotation, scattered over the pool).
  size_t rotation_bytes(const nlohmann::json& params) override {
    const Shape s = parse_shape(params);
    const size_t gathered = std::min(s.pool_bytes(), static_cast<size_t>(s.rows()) *
                                                         std::min(s.topk, s.context) * s.record_bytes());
    return s.q_elems() * 2 + s.idx_elems() * 4 + s.batch * 4 + s.out_elems() * 2 + s.lse_elems() * 4 + gathered;
  }

  void prepare(const nlohmann::json& params, int rotations) override {
    release();
    if (rotations < 1) throw ProblemError("prepare: rotations must be >= 1");
    const Shape s = parse_shape(params);
    const size_t per_rotation = s.q_elems() * 2 + s.idx_elems() * 4 + s.batch * 4 + s.out_elems() * (2 + 4) +
                                s.lse_elems() * (4 + 4);
    const size_t need = s.pool_bytes() + per_rotation * rotations + static_cast<size_t>(s.topk) * s.record_bytes();
    size_t free_bytes = 0, total_bytes = 0;
    AR_CUDA("problem_error", cudaMemGetInfo(&free_bytes, &total_bytes));
    if (need + kMemoryMargin > free_bytes) {
      char text[200];
      std::snprintf(text, sizeof text,
                    "the workload needs %.1f GiB of device memory (KV pool %.1f GiB, %d rotations); %.1f GiB free",
                    gib(need), gib(s.pool_bytes()), rotations, gib(free_bytes));
      throw ProblemError(text);
    }

    shape_ = s;
    pool_.allocate(s.pool_bytes(), "the KV pool");
    context_.allocate(s.batch * sizeof(int), "contexts");
    page_offset_.allocate((s.batch + 1) * sizeof(long long), "page offsets");
    staging_.allocate(static_cast<size_t>(s.topk) * s.record_bytes(), "oracle staging");
    rotations_.resize(rotations);
    for (Rotation& r : rotations_) {
      r.q.allocate(s.q_elems() * 2, "q");
      r.indices.allocate(s.idx_elems() * 4, "indices");
      if (s.use_topk_length) r.topk_length.allocate(s.batch * 4, "topk_length");
      r.out.allocate(s.out_elems() * 2, "out");
      r.lse.allocate(s.lse_elems() * 4, "lse");
      r.ref_out.allocate(s.out_elems() * 4, "the reference out");
      r.ref_lse.allocate(s.lse_elems() * 4, "the reference lse");
      SparseMlaParams& p = r.params;
      p.q = r.q.as<__nv_bfloat16>();
      p.kv = pool_.as<void>();
      p.indices = r.indices.as<int>();
      p.topk_length = s.use_topk_length ? r.topk_length.as<int>() : nullptr;
      p.out = r.out.as<__nv_bfloat16>();
      p.lse = r.lse.as<float>();
      p.workspace = nullptr;
      p.batch = s.batch;
      p.s_q = s.s_q;
      p.heads = s.heads;
      p.topk = s.topk;
      p.num_slots = static_cast<int>(s.num_slots);
      p.page_size = s.page_size;
      p.kv_fp8 = s.fp8 ? 1 : 0;
      p.scale = s.scale;
    }
    prepared_ = true;
  }

  void release() override {
    rotations_.clear();
    pool_distribution_ = -1;
    pool_.reset();
    context_.reset();
    page_offset_.reset();
    staging_.reset();
    prepared_ = false;
  }

  int distributions() const override { return kDistributions; }
  std::string distribution_name(int d) const override { return sparse_mla::distribution_name(d); }

  void randomize(int rotation, uint64_t seed, int distribution) override {
    Rotation& r = rot(rotation);
    if (distribution < 0 || distribution >= kDistributions)
      throw ProblemError("randomize: no distribution " + std::to_string(distribution));
    const Shape& s = shape_;

    // The device copies of the layout are rewritten every time: only the
    // generators read them, and a candidate may have scribbled on them.
    const bool fresh_pool = distribution != pool_distribution_;
    if (fresh_pool) layout_ = draw_pool_layout(s, seed);
    AR_CUDA("problem_error", cudaMemcpy(context_.as<int>(), layout_.context.data(), s.batch * sizeof(int),
                                        cudaMemcpyHostToDevice));
    AR_CUDA("problem_error", cudaMemcpy(page_offset_.as<long long>(), layout_.page_offset.data(),
                                        (s.batch + 1) * sizeof(long long), cudaMemcpyHostToDevice));
    const DeviceLayout dl = device_layout();
    if (fresh_pool) {
      clear_pool(pool_.as<void>(), s);
      pool_seed_ = mix64(seed ^ kSaltPool);
      pool_distribution_ = distribution;
    }

    r.randomized = true;
    r.seed = seed;
    r.distribution = distribution;
    generate_q(r.q.as<__nv_bfloat16>(), s, mix64(seed ^ kSaltQ), distribution);
    r.empty_row = distribution == kUniform ? static_cast<long long>(mix64(seed ^ kSaltEmpty) % s.rows()) : -2;
    r.single_row = distribution == kPeaked ? static_cast<long long>(mix64(seed ^ kSaltSingle) % s.rows()) : -2;
    if (s.use_topk_length) {
      r.host_topk_length = draw_topk_length(s, seed, distribution);
      AR_CUDA("problem_error", cudaMemcpy(r.topk_length.as<int>(), r.host_topk_length.data(), s.batch * sizeof(int),
                                          cudaMemcpyHostToDevice));
    }
    // A fresh pool changed under every rotation: re-derive each one's indices,
    // and write the records they name (a record an earlier draw named stays:
    // it holds the same bytes it would be written with again).
    for (Rotation& x : rotations_) {
      if (!x.randomized || (!fresh_pool && &x != &r)) continue;
      generate_indices(x.indices.as<int>(), s, dl, mix64(x.seed ^ kSaltIdx), x.distribution, x.empty_row,
                       x.single_row, s.use_topk_length ? x.topk_length.as<int>() : nullptr);
      write_records(pool_.as<void>(), s, dl, pool_seed_, pool_distribution_, x.indices.as<int>());
      x.reference_valid = false;
    }
    AR_CUDA("problem_error", cudaDeviceSynchronize());
  }

  void poison_outputs(int rotation) override {
    Rotation& r = rot(rotation);
    AR_CUDA("problem_error", cudaMemset(r.out.as<void>(), 0xFF, r.out.bytes()));   // bf16 NaN
    AR_CUDA("problem_error", cudaMemset(r.lse.as<void>(), 0xFF, r.lse.bytes()));   // fp32 NaN
    AR_CUDA("problem_error", cudaDeviceSynchronize());
  }

  std::string input_fingerprint(int rotation) override {
    Rotation& r = rot(rotation);
    std::vector<HashedBuffer> inputs = {{r.q.as<void>(), r.q.bytes()},
                                        {r.indices.as<void>(), r.indices.bytes()},
                                        {pool_.as<void>(), pool_.bytes()}};
    if (shape_.use_topk_length) inputs.push_back({r.topk_length.as<void>(), r.topk_length.bytes()});
    return fingerprint(inputs, secret_ ^ 1);
  }

  // After every timed sample: one launch over out and lse, one copy back.
  std::string output_fingerprint(int rotation) override {
    Rotation& r = rot(rotation);
    return fingerprint({{r.out.as<void>(), r.out.bytes()}, {r.lse.as<void>(), r.lse.bytes()}}, secret_ ^ 5);
  }

  void run_reference(int rotation) override {
    Rotation& r = rot(rotation);
    const SparseMlaParams& p = r.params;
    ReferenceArgs a{p.q, p.kv, p.indices, p.topk_length, r.ref_out.as<float>(), r.ref_lse.as<float>(),
                    p.batch, p.s_q, p.heads, p.topk, p.num_slots, p.kv_fp8, p.scale};
    run_reference_kernel(a);
    AR_CUDA("problem_error", cudaDeviceSynchronize());
    r.host_ref_out.resize(shape_.out_elems());
    r.host_ref_lse.resize(shape_.lse_elems());
    AR_CUDA("problem_error", cudaMemcpy(r.host_ref_out.data(), r.ref_out.as<void>(), r.ref_out.bytes(),
                                        cudaMemcpyDeviceToHost));
    AR_CUDA("problem_error", cudaMemcpy(r.host_ref_lse.data(), r.ref_lse.as<void>(), r.ref_lse.bytes(),
                                        cudaMemcpyDeviceToHost));
    hide_reference(r);
    r.reference_valid = true;
  }

  // The reference's device buffers as run_reference() left them: NaN, which
  // no launch after it may touch.
  std::string reference_fingerprint(int rotation) override {
    Rotation& r = rot(rotation);
    return fingerprint({{r.ref_out.as<void>(), r.ref_out.bytes()}, {r.ref_lse.as<void>(), r.ref_lse.bytes()}},
                       secret_ ^ 7);
  }

  std::vector<OutputCheck> check(int rotation, const std::vector<Tolerance>& tolerances,
                                 uint64_t sample_seed) override {
    Rotation& r = rot(rotation);
    const Tolerance& tol_out = find_tolerance(tolerances, "out");
    const Tolerance& tol_lse = find_tolerance(tolerances, "lse");
    if (!r.reference_valid)
      throw ProblemError("check() on rotation " + std::to_string(rotation) +
                         " without run_reference() on its current inputs");
    // Back on the device for the comparison (no candidate runs until it is hidden again).
    AR_CUDA("problem_error", cudaMemcpy(r.ref_out.as<void>(), r.host_ref_out.data(), r.ref_out.bytes(),
                                        cudaMemcpyHostToDevice));
    AR_CUDA("problem_error", cudaMemcpy(r.ref_lse.as<void>(), r.host_ref_lse.data(), r.ref_lse.bytes(),
                                        cudaMemcpyHostToDevice));
    struct Rehide {
      SparseMlaProblem* self;
      Rotation& r;
      ~Rehide() {
        try {
          self->hide_reference(r);
        } catch (const std::exception&) {
          // A device that cannot memset is broken; the next call reports it.
        }
      }
    } rehide{this, r};
    std::vector<OutputCheck> checks;

    const CompareStats out = compare_bf16(r.out.as<__nv_bfloat16>(), r.ref_out.as<float>(), shape_.out_elems(),
                                          tol_out.abs, tol_out.rel);
    checks.push_back(finish("out", out, tol_out, out.first_bad < 0 ? "" : out_detail(r, out.first_bad)));
    const CompareStats lse =
        compare_f32(r.lse.as<float>(), r.ref_lse.as<float>(), shape_.lse_elems(), tol_lse.abs, tol_lse.rel);
    checks.push_back(finish("lse", lse, tol_lse, lse.first_bad < 0 ? "" : lse_detail(r, lse.first_bad)));

    oracle_checks(r, tol_out, tol_lse, sample_seed, &checks);
    return checks;
  }

  const void* params(int rotation, size_t* size) override {
    *size = sizeof(SparseMlaParams);
    return &rot(rotation).params;
  }

  long workspace_offset() const override { return static_cast<long>(offsetof(SparseMlaParams, workspace)); }

 private:
  Rotation& rot(int rotation) {
    if (!prepared_) throw ProblemError("the problem is not prepared");
    if (rotation < 0 || rotation >= static_cast<int>(rotations_.size()))
      throw ProblemError("rotation " + std::to_string(rotation) + " out of range");
    return rotations_[rotation];
  }

  void hide_reference(Rotation& r) {
    AR_CUDA("problem_error", cudaMemset(r.ref_out.as<void>(), 0xFF, r.ref_out.bytes()));
    AR_CUDA("problem_error", cudaMemset(r.ref_lse.as<void>(), 0xFF, r.ref_lse.bytes()));
    AR_CUDA("problem_error", cudaDeviceSynchronize());
  }

  DeviceLayout device_layout() const {
    return DeviceLayout{context_.as<int>(), page_offset_.as<long long>(), layout_.used_pages, layout_.perm_key};
  }

  // out[b,i,h,d]=x ref=y for flat index e of [batch, s_q, heads, 512].
  std::string out_detail(Rotation& r, long long e) {
    const long long d = e % 512, rh = e / 512, h = rh % shape_.heads, row = rh / shape_.heads;
    const double cand = __bfloat162float(fetch(r.out.as<__nv_bfloat16>() + e));
    const double ref = fetch(r.ref_out.as<float>() + e);
    return "out[" + std::to_string(row / shape_.s_q) + "," + std::to_string(row % shape_.s_q) + "," +
           std::to_string(h) + "," + std::to_string(d) + "]=" + value_text(cand) + " ref=" + value_text(ref);
  }

  // lse[b,h,i] for flat index e of [batch, heads, s_q].
  std::string lse_detail(Rotation& r, long long e) {
    const long long i = e % shape_.s_q, bh = e / shape_.s_q, h = bh % shape_.heads, b = bh / shape_.heads;
    const double cand = fetch(r.lse.as<float>() + e);
    const double ref = fetch(r.ref_lse.as<float>() + e);
    return "lse[" + std::to_string(b) + "," + std::to_string(h) + "," + std::to_string(i) + "]=" +
           value_text(cand) + " ref=" + value_text(ref);
  }

  // The rows the float64 oracle evaluates: a few random ones and the rotation's special rows.
  std::vector<long long> oracle_rows(const Rotation& r, uint64_t seed) const {
    std::vector<long long> rows;
    for (int k = 0; k < kOracleRows; ++k) rows.push_back(static_cast<long long>(mix64(seed + k) % shape_.rows()));
    if (r.empty_row >= 0) rows.push_back(r.empty_row);
    if (r.single_row >= 0) rows.push_back(r.single_row);
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
  }

  std::vector<int> oracle_heads(uint64_t seed) const {
    std::vector<int> heads = {0, shape_.heads - 1};
    for (int k = 2; k < kOracleHeads; ++k) heads.push_back(static_cast<int>(mix64(seed ^ (0x100 + k)) % shape_.heads));
    std::sort(heads.begin(), heads.end());
    heads.erase(std::unique(heads.begin(), heads.end()), heads.end());
    return heads;
  }

  OracleRow load_oracle_row(Rotation& r, long long row, uint64_t seed) {
    const Shape& s = shape_;
    OracleRow o;
    o.b = static_cast<int>(row / s.s_q);
    o.i = static_cast<int>(row % s.s_q);
    o.heads = oracle_heads(mix64(seed ^ static_cast<uint64_t>(row)));
    const int* idx_row = r.indices.as<int>() + row * s.topk;
    o.indices.resize(s.topk);
    AR_CUDA("problem_error", cudaMemcpy(o.indices.data(), idx_row, s.topk * sizeof(int), cudaMemcpyDeviceToHost));
    o.n_eff = s.use_topk_length ? std::clamp(r.host_topk_length[o.b], 0, s.topk) : s.topk;
    gather_records(pool_.as<void>(), idx_row, s.topk, static_cast<int>(s.num_slots),
                   static_cast<int>(s.record_bytes()), staging_.as<unsigned char>());
    o.records.resize(static_cast<size_t>(s.topk) * s.record_bytes());
    AR_CUDA("problem_error", cudaMemcpy(o.records.data(), staging_.as<void>(), o.records.size(), cudaMemcpyDeviceToHost));
    o.q.resize(o.heads.size() * 576);
    for (size_t k = 0; k < o.heads.size(); ++k)
      AR_CUDA("problem_error", cudaMemcpy(&o.q[k * 576], r.q.as<__nv_bfloat16>() + (row * s.heads + o.heads[k]) * 576,
                                          576 * 2, cudaMemcpyDeviceToHost));
    return o;
  }

  // The candidate and the GPU reference, each against float64 on sampled rows.
  void oracle_checks(Rotation& r, const Tolerance& tol_out, const Tolerance& tol_lse, uint64_t seed,
                     std::vector<OutputCheck>* checks) {
    const Shape& s = shape_;
    const Tolerance ref_out_tol = scaled(tol_out, kReferenceToleranceFactor);
    const Tolerance ref_lse_tol = scaled(tol_lse, kReferenceToleranceFactor);
    HostCheck cand_out, cand_lse, ref_out, ref_lse;
    std::vector<uint16_t> cand_row(512);
    std::vector<float> ref_row(512);
    // Off the device one by one (they share the staging buffer), then float64 for all at once.
    const std::vector<long long> rows = oracle_rows(r, seed);
    std::vector<OracleRow> loaded;
    for (long long row : rows) loaded.push_back(load_oracle_row(r, row, seed));
    std::vector<OracleResult> results;
    oracle_each_row(loaded, s, &results);
    for (size_t n = 0; n < rows.size(); ++n) {
      const long long row = rows[n];
      const OracleRow& o = loaded[n];
      const std::vector<double>& out64 = results[n].out;
      const std::vector<double>& lse64 = results[n].lse;
      const std::vector<double>& logit_scale64 = results[n].logit_scale;
      for (size_t k = 0; k < o.heads.size(); ++k) {
        const int h = o.heads[k];
        const long long rh = row * s.heads + h;
        AR_CUDA("problem_error", cudaMemcpy(cand_row.data(), r.out.as<__nv_bfloat16>() + rh * 512, 512 * 2,
                                            cudaMemcpyDeviceToHost));
        AR_CUDA("problem_error", cudaMemcpy(ref_row.data(), r.ref_out.as<float>() + rh * 512, 512 * 4,
                                            cudaMemcpyDeviceToHost));
        for (int d = 0; d < 512; ++d) {
          auto at = [&] { return "[" + std::to_string(o.b) + "," + std::to_string(o.i) + "," + std::to_string(h) +
                                 "," + std::to_string(d) + "]"; };
          cand_out.add(bf16_to_double(cand_row[d]), out64[k * 512 + d], tol_out, [&] { return "out" + at(); });
          ref_out.add(ref_row[d], out64[k * 512 + d], ref_out_tol, [&] { return "reference out" + at(); });
        }
        const long long li = (static_cast<long long>(o.b) * s.heads + h) * s.s_q + o.i;
        auto at = [&] { return "[" + std::to_string(o.b) + "," + std::to_string(h) + "," + std::to_string(o.i) + "]"; };
        cand_lse.add(fetch(r.lse.as<float>() + li), lse64[k], tol_lse, [&] { return "lse" + at(); });
        Tolerance row_lse_tol = ref_lse_tol;
        row_lse_tol.abs = std::max(row_lse_tol.abs, kReferenceLseEpsilons * kFloat32Epsilon * logit_scale64[k]);
        ref_lse.add(fetch(r.ref_lse.as<float>() + li), lse64[k], row_lse_tol, [&] { return "reference lse" + at(); });
      }
    }
    checks->push_back(finish("out@f64", cand_out.stats, tol_out, cand_out.detail));
    checks->push_back(finish("lse@f64", cand_lse.stats, tol_lse, cand_lse.detail));
    checks->push_back(finish("ref_out@f64", ref_out.stats, ref_out_tol, ref_out.detail));
    checks->push_back(finish("ref_lse@f64", ref_lse.stats, ref_lse_tol, ref_lse.detail));
  }

  Shape shape_;
  bool prepared_ = false;
  int pool_distribution_ = -1;   // the distribution the pool holds; -1: none yet
  uint64_t pool_seed_ = 0;        // the seed its records are written from
  uint64_t secret_ = process_secret();
  DeviceBuffer pool_, context_, page_offset_, staging_;
  PoolLayout layout_;
  std::vector<Rotation> rotations_;
};

}  // namespace

}  // namespace sparse_mla

namespace ar::harness {

std::unique_ptr<Problem> make_problem() { return std::make_unique<sparse_mla::SparseMlaProblem>(); }

}  // namespace ar::harness
