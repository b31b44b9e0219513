// The protected oracle of matmul_cpu: inputs, the independent reference and
// the comparison (include/autoresearch/harness/problem.h). Never editable by an
// agent; the harness owns the procedure around it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "autoresearch/harness/problem_kit.h"
#include "matmul_params.h"

namespace ar::harness {

namespace {

namespace kit = ar::harness::kit;

// A quiet NaN with a payload: any arithmetic on it stays NaN, and a padding
// element still holding exactly these bits was provably never written.
constexpr uint32_t kPoisonBits = kit::kPoisonF32Bits;
constexpr long long kMaxDim = 8192;
constexpr long long kMaxPad = 64;
constexpr const char* kDistributions[] = {"randn",    "uniform",  "small_int", "mixed_exp",
                                          "positive", "outliers", "all_equal"};
constexpr int kDistributionCount = 7;
constexpr int kOutliers = 5;   // the distribution the planted tail values go into (see fill_outliers)
constexpr int kAllEqual = 6;
// The planted tail magnitude. Large enough that dropping or mis-weighting one
// of the last two k steps is off by up to 256 (an abs tolerance of 5e-4 is a
// million times smaller), small enough that an honest fp32 kernel stays inside
// the tolerance in any summation order (see fill_outliers).
constexpr float kOutlierMagnitude = 256.0f;

// The generic parts (a seeded stream, poison, aligned buffers, fingerprints,
// reading params) are the shared ones every package uses (problem_kit.h).
using kit::Rng;
float poison() { return kit::poison_f32(); }
using FloatBuffer = kit::HostBuffer<float>;
// 64-byte aligned, so vector loads in the kernel never straddle a line by our doing.
FloatBuffer allocate(size_t count) { return kit::allocate_host<float>(count); }

// Distribution d, element by element:
//   randn; uniform[-1,1];
//   small_int: integers in [-4,4] (every summation order gives the exact
//     result, so any error is a real one);
//   mixed_exp: magnitudes spread over 2^-12..2 (catches fp16/bf16 shortcuts);
//   positive: uniform[0.5,2), another value range and one where nothing
//     cancels: C grows like k, so the relative tolerance is what judges it.
//     Every term is positive, so any summation order errs by at most
//     k * 2^-24 * C (recursive summation bound) = 1.5e-5 C at k = 256, well
//     inside rel 1e-4; a dropped or halved term is off by >= 0.25 / (4k) >= 2.4e-4 C;
//   outliers: randn, then planted tail values (fill_outliers);
//   all_equal: one value for all of A and one for all of B (degenerate data:
//     zero variance, identical rows; a kernel that estimates, normalises or
//     pivots on the data meets its edge case). C = k x y; fp32 errs by at most
//     k * 2^-24 relative, the rel tolerance allows 1e-4.
float draw(Rng& rng, int d) {
  switch (d) {
    case 0: return static_cast<float>(rng.normal());
    case 1: return static_cast<float>(2.0 * rng.uniform01() - 1.0);
    case 2: return static_cast<float>(rng.integer(-4, 4));
    case 3: {
      const double mag = (1.0 + rng.uniform01()) * std::ldexp(1.0, -rng.integer(0, 12));
      return static_cast<float>(rng.next() & 1 ? mag : -mag);
    }
    case 4: return static_cast<float>(0.5 + 1.5 * rng.uniform01());
    default: return static_cast<float>(rng.normal());
  }
}

// A value for every element of one matrix (all_equal): in [1,2) with a full
// mantissa, so products round, and a random sign.
float equal_value(Rng& rng) {
  const double v = 1.0 + rng.uniform01();
  return static_cast<float>(rng.next() & 1 ? v : -v);
}

long long read_dim(const nlohmann::json& params, const char* key, long long lo, long long hi,
                   bool required, long long fallback) {
  return kit::read_int_param(params, key, lo, hi, required ? nullptr : &fallback);
}

struct Shape {
  int m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
  size_t a_count() const { return static_cast<size_t>(m) * lda; }
  size_t b_count() const { return static_cast<size_t>(k) * ldb; }
  size_t c_count() const { return static_cast<size_t>(m) * ldc; }
};

// {"m","n","k"} and an optional "pad": extra elements at the end of every row
// of A, B and C, so a kernel that ignores the strides reads NaN or writes
// where it must not.
Shape parse_shape(const nlohmann::json& params) {
  if (!params.is_object()) throw ProblemError("workload params: expected an object {m, n, k[, pad]}");
  Shape s;
  s.m = static_cast<int>(read_dim(params, "m", 1, kMaxDim, true, 0));
  s.n = static_cast<int>(read_dim(params, "n", 1, kMaxDim, true, 0));
  s.k = static_cast<int>(read_dim(params, "k", 1, kMaxDim, true, 0));
  const int pad = static_cast<int>(read_dim(params, "pad", 0, kMaxPad, false, 0));
  s.lda = s.k + pad;
  s.ldb = s.n + pad;
  s.ldc = s.n + pad;
  return s;
}

struct Rotation {
  FloatBuffer a, b, c;
  MatmulParams params{};
};

class MatmulProblem final : public Problem {
 public:
  std::vector<std::string> output_names() const override { return {"c"}; }
  std::vector<std::string> param_names() const override { return {"m", "n", "k", "pad"}; }

  size_t rotation_bytes(const nlohmann::json& params) override {
    Shape s = parse_shape(params);
    return sizeof(float) * (s.a_count() + s.b_count() + s.c_count());
  }

  void prepare(const nlohmann::json& params, int rotations) override {
    release();
    shape_ = parse_shape(params);
    rotations_.resize(static_cast<size_t>(rotations));
    for (auto& r : rotations_) {
      r.a = allocate(shape_.a_count());
      r.b = allocate(shape_.b_count());
      r.c = allocate(shape_.c_count());
      r.params = MatmulParams{r.a.get(), r.b.get(), r.c.get(), shape_.m, shape_.n,
                              shape_.k,  shape_.lda, shape_.ldb, shape_.ldc};
    }
  }

  void release() override {
    rotations_.clear();
    reference_inputs_.clear();
    reference_rotation_ = -1;
  }

  int distributions() const override { return kDistributionCount; }
  std::string distribution_name(int d) const override {
    return d >= 0 && d < kDistributionCount ? kDistributions[d] : "unknown";
  }

  void randomize(int rotation, uint64_t seed, int distribution) override {
    Rotation& r = at(rotation);
    Rng rng(seed);
    if (distribution == kAllEqual) {
      fill_constant(r.a.get(), shape_.m, shape_.k, shape_.lda, equal_value(rng));
      fill_constant(r.b.get(), shape_.k, shape_.n, shape_.ldb, equal_value(rng));
    } else {
      fill(r.a.get(), shape_.m, shape_.k, shape_.lda, rng, distribution);
      fill(r.b.get(), shape_.k, shape_.n, shape_.ldb, rng, distribution);
      if (distribution == kOutliers) fill_outliers(r, rng);
    }
    if (reference_rotation_ == rotation) reference_rotation_ = -1;
  }

  void poison_outputs(int rotation) override {
    Rotation& r = at(rotation);
    const float p = poison();
    for (size_t i = 0; i < shape_.c_count(); ++i) r.c[i] = p;
  }

  std::string input_fingerprint(int rotation) override {
    Rotation& r = at(rotation);
    return kit::fnv1a({{r.a.get(), shape_.a_count() * sizeof(float)}, {r.b.get(), shape_.b_count() * sizeof(float)}});
  }

  std::string output_fingerprint(int rotation) override {
    Rotation& r = at(rotation);
    return kit::fnv1a({{r.c.get(), shape_.c_count() * sizeof(float)}});
  }

  // The verdict is computed out of the kernel's reach (docs/guards.md): the
  // kernel runs inside this process and could overwrite a reference computed
  // between its runs. So run_reference() only notes which inputs the reference
  // is for (and their fingerprint); check() computes the float64 reference
  // itself, after the kernel's last run, into memory allocated then, and
  // compares at once, with no kernel call in between.
  void run_reference(int rotation) override {
    reference_inputs_ = input_fingerprint(rotation);
    reference_rotation_ = rotation;
  }

  std::vector<OutputCheck> check(int rotation, const std::vector<Tolerance>& tolerances,
                                 uint64_t /*sample_seed: the reference is already full float64*/) override;

  const void* params(int rotation, size_t* size) override {
    if (size) *size = sizeof(MatmulParams);
    return &at(rotation).params;
  }

 private:
  Rotation& at(int rotation) {
    if (rotation < 0 || static_cast<size_t>(rotation) >= rotations_.size())
      throw ProblemError("rotation " + std::to_string(rotation) + " was not prepared");
    return rotations_[static_cast<size_t>(rotation)];
  }

  // Row padding holds the poison: a kernel that reads it gets NaN in C.
  static void fill(float* dst, int rows, int cols, int ld, Rng& rng, int distribution) {
    const float p = poison();
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < ld; ++j)
        dst[static_cast<size_t>(i) * ld + j] = j < cols ? draw(rng, distribution) : p;
  }

  static void fill_constant(float* dst, int rows, int cols, int ld, float value) {
    const float p = poison();
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < ld; ++j) dst[static_cast<size_t>(i) * ld + j] = j < cols ? value : p;
  }

  // Planted outliers in the tail of k, where a kernel that drops, truncates or
  // mis-weights the last steps (a remainder loop left out, k rounded down to
  // a tile) or saturates large inputs loses them. Every row of A ends in
  // H/2, H (H = 256) and B's last two rows are -2s and s (s uniform in
  // [-1,1]): the two products cancel exactly, so C stays ordinary (randn-sized)
  // while one missing step is off by H|s|, and a kernel that clamps inputs to
  // some range R < H is off by R|s|.
  // Honest error: H s is exact in fp32 (H is a power of two), and an fp32
  // kernel in any order rounds a partial sum of magnitude <= H + |C| a few
  // times (separate accumulators per unrolled step, then their sum: at most
  // ~5 roundings), 5 * 2^-24 * 300 = 9e-5 < abs 5e-4 (measured over the
  // tunables: at most 6e-5). With k = 1 the one column of A is H: C = H b,
  // exact in any kernel.
  void fill_outliers(Rotation& r, Rng& rng) {
    const Shape& s = shape_;
    const int tail = std::min(2, s.k);
    for (int i = 0; i < s.m; ++i)
      for (int t = 0; t < tail; ++t)
        r.a[static_cast<size_t>(i) * s.lda + (s.k - 1 - t)] = t == 0 ? kOutlierMagnitude : kOutlierMagnitude / 2;
    if (tail < 2) return;
    for (int j = 0; j < s.n; ++j) {
      const float v = static_cast<float>(2.0 * rng.uniform01() - 1.0);
      r.b[static_cast<size_t>(s.k - 1) * s.ldb + j] = v;
      r.b[static_cast<size_t>(s.k - 2) * s.ldb + j] = -2 * v;
    }
  }

  // float64, column by column of C (j outer, i, then k): an order and a
  // precision no fp32 kernel shares, from a contiguous copy of B's column.
  std::vector<double> reference(const Rotation& r) const {
    const Shape& s = shape_;
    std::vector<double> ref(static_cast<size_t>(s.m) * s.n, 0.0);
    std::vector<double> column(static_cast<size_t>(s.k));
    for (int j = 0; j < s.n; ++j) {
      for (int kk = 0; kk < s.k; ++kk) column[kk] = r.b[static_cast<size_t>(kk) * s.ldb + j];
      for (int i = 0; i < s.m; ++i) {
        const float* a = r.a.get() + static_cast<size_t>(i) * s.lda;
        double sum = 0;
        for (int kk = 0; kk < s.k; ++kk) sum += static_cast<double>(a[kk]) * column[kk];
        ref[static_cast<size_t>(i) * s.n + j] = sum;
      }
    }
    return ref;
  }

  Shape shape_;
  std::vector<Rotation> rotations_;
  std::string reference_inputs_;   // input fingerprint when run_reference() was called
  int reference_rotation_ = -1;
};

std::string element_detail(int i, int j, double out, double ref) {
  char text[128];
  std::snprintf(text, sizeof text, "c[%d,%d]=%.9g ref=%.9g", i, j, out, ref);
  return text;
}

std::vector<OutputCheck> MatmulProblem::check(int rotation, const std::vector<Tolerance>& tolerances,
                                              uint64_t) {
  if (reference_rotation_ != rotation)
    throw ProblemError("check() on rotation " + std::to_string(rotation) +
                       " without run_reference() on its current inputs");
  const Tolerance* tol = nullptr;
  for (const auto& t : tolerances)
    if (t.output == "c") tol = &t;
  if (!tol) throw ProblemError("no tolerance given for output 'c'");

  const Shape& s = shape_;
  OutputCheck oc;
  oc.output = "c";
  oc.elements = static_cast<long long>(s.m) * s.n;
  // The inputs the reference was asked for must be the inputs it is computed
  // from: a kernel that wrote them after run_reference() fails here even if the
  // caller's own fingerprint check was fooled.
  if (input_fingerprint(rotation) != reference_inputs_) {
    oc.pass = false;
    oc.mismatches = oc.elements;
    oc.detail = "the inputs changed after the reference was requested (the kernel modified its inputs)";
    return {oc};
  }
  const std::vector<double> expected = reference(at(rotation));
  const float* c = at(rotation).c.get();
  double dot = 0, out_sq = 0, ref_sq = 0;
  for (int i = 0; i < s.m; ++i) {
    for (int j = 0; j < s.n; ++j) {
      const double out = c[static_cast<size_t>(i) * s.ldc + j];
      const double ref = expected[static_cast<size_t>(i) * s.n + j];
      bool bad = false;
      if (!std::isfinite(out)) {
        ++oc.nonfinite;
        bad = true;
      } else {
        const double err = std::fabs(out - ref);
        oc.max_abs_err = std::max(oc.max_abs_err, err);
        if (ref != 0) oc.max_rel_err = std::max(oc.max_rel_err, err / std::fabs(ref));
        dot += out * ref;
        out_sq += out * out;
        ref_sq += ref * ref;
        if (err > tol->abs && err > tol->rel * std::fabs(ref)) {
          ++oc.mismatches;
          bad = true;
        }
      }
      if (bad && oc.detail.empty()) oc.detail = element_detail(i, j, out, ref);
    }
    // Writes past the n columns land in the row padding, which must keep the poison.
    for (int j = s.n; j < s.ldc; ++j) {
      uint32_t bits;
      std::memcpy(&bits, &c[static_cast<size_t>(i) * s.ldc + j], sizeof bits);
      if (bits == kPoisonBits) continue;
      ++oc.mismatches;
      if (oc.detail.empty())
        oc.detail = "c[" + std::to_string(i) + "," + std::to_string(j) +
                    "] is row padding outside the m x n output and was written";
    }
  }
  if (out_sq > 0 && ref_sq > 0) oc.cosine_diff = std::max(0.0, 1.0 - dot / std::sqrt(out_sq * ref_sq));
  else oc.cosine_diff = (out_sq == ref_sq) ? 0.0 : 1.0;
  const bool cosine_ok = tol->cosine < 0 || oc.cosine_diff <= tol->cosine;
  if (!cosine_ok && oc.detail.empty()) {
    char text[96];
    std::snprintf(text, sizeof text, "1 - cos(c, ref) = %.3g > %.3g", oc.cosine_diff, tol->cosine);
    oc.detail = text;
  }
  oc.pass = oc.mismatches == 0 && oc.nonfinite == 0 && cosine_ok;
  return {oc};
}

}  // namespace

std::unique_ptr<Problem> make_problem() { return std::make_unique<MatmulProblem>(); }

}  // namespace ar::harness
