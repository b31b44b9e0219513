// The protected problem of this package (include/autoresearch/harness/problem.h):
// the inputs, the independent reference and the comparison. Never editable by
// an agent; the harness owns the procedure around it (poison, candidate ->
// reference -> candidate, fingerprints, timing). The generic parts come from
// autoresearch/harness/problem_kit.h; what is left here is what only this
// problem knows. Change the shapes, the inputs and the reference for your
// kernel; keep output_names() and param_names() in step with the manifest
// (`autoresearch verify --dry-run` checks them).
#include <cstdio>
#include <string>
#include <vector>

#include "autoresearch/harness/problem_kit.h"
#include "params.h"

namespace ar::harness {

namespace {

namespace kit = ar::harness::kit;

constexpr long long kMaxN = 1ll << 26;
constexpr const char* kDistributions[] = {"randn", "uniform", "all_equal"};
constexpr int kDistributionCount = 3;
constexpr int kAllEqual = 2;

struct Rotation {
  kit::HostBuffer<float> x, y, out;
  KernelParams params{};
};

class Axpy final : public Problem {
 public:
  std::vector<std::string> output_names() const override { return {"out"}; }
  std::vector<std::string> param_names() const override { return {"n"}; }

  size_t rotation_bytes(const nlohmann::json& params) override { return 3 * sizeof(float) * parse_n(params); }

  void prepare(const nlohmann::json& params, int rotations) override {
    release();
    n_ = parse_n(params);
    rotations_.resize(static_cast<size_t>(rotations));
    for (auto& r : rotations_) {
      r.x = kit::allocate_host<float>(n_);
      r.y = kit::allocate_host<float>(n_);
      r.out = kit::allocate_host<float>(n_);
      r.params = KernelParams{r.x.get(), r.y.get(), r.out.get(), 1.0f, static_cast<long long>(n_)};
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
    Rotation& r = kit::rotation_at(rotations_, rotation);
    kit::Rng rng(seed);
    r.params.alpha = static_cast<float>((rng.next() & 1 ? 1 : -1) * (0.5 + rng.uniform01()));
    const float ex = static_cast<float>(rng.normal()), ey = static_cast<float>(rng.normal());
    for (size_t i = 0; i < n_; ++i) {
      r.x[i] = distribution == kAllEqual ? ex : draw(rng, distribution);
      r.y[i] = distribution == kAllEqual ? ey : draw(rng, distribution);
    }
    if (reference_rotation_ == rotation) reference_rotation_ = -1;
  }

  void poison_outputs(int rotation) override {
    Rotation& r = kit::rotation_at(rotations_, rotation);
    for (size_t i = 0; i < n_; ++i) r.out[i] = kit::poison_f32();
  }

  std::string input_fingerprint(int rotation) override {
    Rotation& r = kit::rotation_at(rotations_, rotation);
    return kit::fnv1a({{r.x.get(), n_ * sizeof(float)}, {r.y.get(), n_ * sizeof(float)},
                       {&r.params.alpha, sizeof r.params.alpha}});
  }

  std::string output_fingerprint(int rotation) override {
    Rotation& r = kit::rotation_at(rotations_, rotation);
    return kit::fnv1a({{r.out.get(), n_ * sizeof(float)}});
  }

  // The kernel runs in this process and could overwrite a reference kept
  // between its runs, so run_reference() only notes the inputs; check()
  // computes the float64 reference after the kernel's last run and compares at once.
  void run_reference(int rotation) override {
    reference_inputs_ = input_fingerprint(rotation);
    reference_rotation_ = rotation;
  }

  std::vector<OutputCheck> check(int rotation, const std::vector<Tolerance>& tolerances, uint64_t) override {
    if (reference_rotation_ != rotation)
      throw ProblemError("check() on rotation " + std::to_string(rotation) + " without run_reference()");
    kit::OutputComparison cmp("out", kit::tolerance_for(tolerances, "out"));
    if (input_fingerprint(rotation) != reference_inputs_) {
      cmp.fail("the inputs changed after the reference was requested (the kernel modified its inputs)",
               static_cast<long long>(n_));
      return {cmp.finish()};
    }
    const Rotation& r = rotations_[static_cast<size_t>(rotation)];
    for (size_t i = 0; i < n_; ++i) {
      const double ref = static_cast<double>(r.params.alpha) * r.x[i] + static_cast<double>(r.y[i]);
      cmp.add(r.out[i], ref, [i] { return "out[" + std::to_string(i) + "]"; });
    }
    return {cmp.finish()};
  }

  const void* params(int rotation, size_t* size) override {
    if (size) *size = sizeof(KernelParams);
    return &kit::rotation_at(rotations_, rotation).params;
  }

 private:
  static size_t parse_n(const nlohmann::json& params) {
    kit::require_known_params(params, {"n"});
    return static_cast<size_t>(kit::read_int_param(params, "n", 1, kMaxN));
  }

  static float draw(kit::Rng& rng, int distribution) {
    return static_cast<float>(distribution == 0 ? rng.normal() : 2.0 * rng.uniform01() - 1.0);
  }

  size_t n_ = 0;
  std::vector<Rotation> rotations_;
  std::string reference_inputs_;
  int reference_rotation_ = -1;
};

}  // namespace

std::unique_ptr<Problem> make_problem() { return std::make_unique<Axpy>(); }

}  // namespace ar::harness
