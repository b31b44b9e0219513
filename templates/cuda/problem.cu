// The protected problem of this package (include/autoresearch/harness/problem.h):
// the inputs, the independent reference and the comparison. Never editable by
// an agent; the harness owns the procedure around it (poison, candidate ->
// reference -> candidate, fingerprints, timing). The generic parts come from
// autoresearch/harness/problem_kit.h (host) and cuda_kit.cuh (device); what is
// left here is what only this problem knows. Change the shapes, the inputs and
// the reference for your kernel; keep output_names() and param_names() in step
// with the manifest (`autoresearch verify --dry-run` checks them).
#include <random>
#include <string>
#include <vector>

#include "autoresearch/harness/cuda_kit.cuh"
#include "autoresearch/harness/problem_kit.h"
#include "params.h"

namespace ar::harness {

namespace {

namespace kit = ar::harness::kit;

constexpr long long kMaxN = 1ll << 28;
constexpr const char* kDistributions[] = {"randn", "uniform", "all_equal"};
constexpr int kDistributionCount = 3;
constexpr int kAllEqual = 2;
constexpr int kOracleSamples = 64;   // elements per check recomputed in float64 on the host

// Inputs from a seed on the device: element i of stream `salt`.
__global__ void fill_inputs(float* v, long long n, uint64_t seed, int distribution, float constant) {
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    if (distribution == kAllEqual) { v[i] = constant; continue; }
    const uint64_t a = kit::kit_mix64(seed ^ (2 * static_cast<uint64_t>(i))), b = kit::kit_mix64(a);
    const double u1 = (static_cast<double>(a >> 11) + 0.5) * 0x1.0p-53, u2 = static_cast<double>(b >> 11) * 0x1.0p-53;
    v[i] = distribution == 0 ? static_cast<float>(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2))
                             : static_cast<float>(2.0 * u1 - 1.0);
  }
}

// The independent reference: the same formula in float64, kept in float64.
__global__ void reference_kernel(const float* x, const float* y, float alpha, long long n, double* ref) {
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    ref[i] = static_cast<double>(alpha) * x[i] + static_cast<double>(y[i]);
}

struct Rotation {
  kit::DeviceBuffer x, y, out, ref;
  KernelParams params{};
};

class Axpy final : public Problem {
 public:
  std::vector<std::string> output_names() const override { return {"out"}; }
  std::vector<std::string> param_names() const override { return {"n"}; }

  size_t rotation_bytes(const nlohmann::json& params) override { return (3 * sizeof(float) + sizeof(double)) * parse_n(params); }

  void prepare(const nlohmann::json& params, int rotations) override {
    release();
    n_ = parse_n(params);
    rotations_.resize(static_cast<size_t>(rotations));
    for (auto& r : rotations_) {
      r.x.allocate(n_ * sizeof(float), "x");
      r.y.allocate(n_ * sizeof(float), "y");
      r.out.allocate(n_ * sizeof(float), "out");
      r.ref.allocate(n_ * sizeof(double), "the reference");
      r.params = KernelParams{r.x.as<float>(), r.y.as<float>(), r.out.as<float>(), 1.0f, static_cast<long long>(n_)};
    }
  }

  void release() override { rotations_.clear(); }

  int distributions() const override { return kDistributionCount; }
  std::string distribution_name(int d) const override {
    return d >= 0 && d < kDistributionCount ? kDistributions[d] : "unknown";
  }

  void randomize(int rotation, uint64_t seed, int distribution) override {
    Rotation& r = kit::rotation_at(rotations_, rotation);
    kit::Rng rng(seed);
    r.params.alpha = static_cast<float>((rng.next() & 1 ? 1 : -1) * (0.5 + rng.uniform01()));
    const unsigned blocks = 1024, threads = 256;
    const long long n = static_cast<long long>(n_);
    fill_inputs<<<blocks, threads>>>(r.x.as<float>(), n, rng.next(), distribution, static_cast<float>(rng.normal()));
    fill_inputs<<<blocks, threads>>>(r.y.as<float>(), n, rng.next(), distribution, static_cast<float>(rng.normal()));
    AR_CUDA("problem_error", cudaGetLastError());
    AR_CUDA("problem_error", cudaDeviceSynchronize());
  }

  void poison_outputs(int rotation) override {
    kit::fill_device(kit::rotation_at(rotations_, rotation).out.as<float>(), n_ * sizeof(float), kit::kPoisonF32Bits);
  }

  std::string input_fingerprint(int rotation) override {
    Rotation& r = kit::rotation_at(rotations_, rotation);
    return kit::device_fingerprint(r.x.as<float>(), n_ * sizeof(float), salt_) + ":" +
           kit::device_fingerprint(r.y.as<float>(), n_ * sizeof(float), salt_ + 1) + ":" +
           std::to_string(r.params.alpha);
  }

  std::string output_fingerprint(int rotation) override {
    return kit::device_fingerprint(kit::rotation_at(rotations_, rotation).out.as<float>(), n_ * sizeof(float), salt_);
  }

  void run_reference(int rotation) override {
    Rotation& r = kit::rotation_at(rotations_, rotation);
    reference_kernel<<<1024, 256>>>(r.x.as<float>(), r.y.as<float>(), r.params.alpha, static_cast<long long>(n_),
                                    r.ref.as<double>());
    AR_CUDA("problem_error", cudaGetLastError());
  }

  // Keyed with a secret drawn at start-up: the harness proves with it that no
  // kernel wrote into the reference after it ran.
  std::string reference_fingerprint(int rotation) override {
    return kit::device_fingerprint(kit::rotation_at(rotations_, rotation).ref.as<double>(), n_ * sizeof(double), salt_ + 2);
  }

  std::vector<OutputCheck> check(int rotation, const std::vector<Tolerance>& tolerances, uint64_t sample_seed) override {
    Rotation& r = kit::rotation_at(rotations_, rotation);
    const Tolerance& tol = kit::tolerance_for(tolerances, "out");
    OutputCheck oc = kit::compare_on_device("out", r.out.as<float>(), r.ref.as<double>(), n_, tol);
    oracle(r, tol, sample_seed, &oc);
    return {oc};
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

  // Sampled elements recomputed in float64 on the host from the inputs as they
  // are now, so a reference kernel that is wrong does not pass everything.
  void oracle(const Rotation& r, const Tolerance& tol, uint64_t seed, OutputCheck* oc) const {
    kit::Rng rng(seed);
    for (int s = 0; s < kOracleSamples; ++s) {
      const size_t i = static_cast<size_t>(rng.next() % n_);
      float x, y, out;
      AR_CUDA("problem_error", cudaMemcpy(&x, r.x.as<float>() + i, sizeof x, cudaMemcpyDeviceToHost));
      AR_CUDA("problem_error", cudaMemcpy(&y, r.y.as<float>() + i, sizeof y, cudaMemcpyDeviceToHost));
      AR_CUDA("problem_error", cudaMemcpy(&out, r.out.as<float>() + i, sizeof out, cudaMemcpyDeviceToHost));
      const double ref = static_cast<double>(r.params.alpha) * x + static_cast<double>(y);
      const kit::ElementCheck e = kit::check_element(out, ref, tol.abs, tol.rel);
      if (e.pass) continue;
      ++oc->mismatches;
      oc->pass = false;
      if (oc->detail.empty()) oc->detail = "out[" + std::to_string(i) + "] differs from the float64 oracle";
    }
  }

  size_t n_ = 0;
  std::vector<Rotation> rotations_;
  uint64_t salt_ = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
};

}  // namespace

std::unique_ptr<Problem> make_problem() { return std::make_unique<Axpy>(); }

}  // namespace ar::harness
