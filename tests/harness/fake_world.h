#pragma once
// A fake device and problem for the harness core (src/harness/common): the
// verify and bench procedures, the replay guards and the state watch run
// against them in-process, with kernels that are plain functions, so every
// guard can be shown to catch (and not to false-alarm) without a GPU.
//
// FakeProblem: y[i] = 0.5 * x[i] + 1 over n inputs per rotation (n from the
// workload params), two input distributions, outputs poisoned with NaN, a
// float64 reference in its own buffer, fingerprints by FNV-1a.
// FakeDevice: slots hold Kernels (looked up by artifact name at load); each
// launch calls the kernel with the problem, the rotation and whether it is
// timed; module variables are a map the kernel may write.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/device.h"

namespace ar::test {

using nlohmann::json;

inline std::string fnv(const void* data, size_t bytes, uint64_t salt = 0) {
  uint64_t h = 0xcbf29ce484222325ull ^ salt;
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return std::to_string(h);
}

class FakeProblem final : public harness::Problem {
 public:
  struct Rotation {
    std::vector<uint32_t> x;
    std::vector<double> y, ref;
    int index = 0;
  };

  bool fingerprint_reference = true;   // false: a problem without reference fingerprints
  bool shared_inputs = false;          // true: randomize() redraws every rotation (a shared pool)
  int reference_runs = 0;

  size_t rotation_bytes(const json& params) override { return static_cast<size_t>(n_of(params)) * 16; }

  void prepare(const json& params, int rotations) override {
    n_ = n_of(params);
    rot_.assign(static_cast<size_t>(rotations), Rotation{});
    for (int r = 0; r < rotations; ++r) {
      rot_[r].index = r;
      rot_[r].x.assign(n_, 0);
      rot_[r].y.assign(n_, 0);
      rot_[r].ref.assign(n_, 0);
    }
  }
  void release() override { rot_.clear(); }

  int distributions() const override { return 2; }
  std::string distribution_name(int d) const override { return d == 0 ? "small" : "large"; }

  void randomize(int rotation, uint64_t seed, int distribution) override {
    for (size_t r = 0; r < rot_.size(); ++r) {
      if (static_cast<int>(r) != rotation && !shared_inputs) continue;
      uint64_t s = seed * 0x9E3779B97F4A7C15ull + r + 1;
      for (auto& v : rot_[r].x) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        v = static_cast<uint32_t>(s >> 40) % (distribution == 0 ? 100u : 100000u);
      }
    }
  }

  void poison_outputs(int rotation) override {
    for (auto& v : at(rotation).y) v = std::numeric_limits<double>::quiet_NaN();
  }
  std::string input_fingerprint(int rotation) override {
    auto& x = at(rotation).x;
    return fnv(x.data(), x.size() * sizeof(uint32_t));
  }
  std::string output_fingerprint(int rotation) override {
    auto& y = at(rotation).y;
    return fnv(y.data(), y.size() * sizeof(double));
  }
  void run_reference(int rotation) override {
    Rotation& r = at(rotation);
    for (int i = 0; i < n_; ++i) r.ref[i] = truth(r.x[i]);
    ++reference_runs;
  }
  std::string reference_fingerprint(int rotation) override {
    if (!fingerprint_reference) return "";
    auto& ref = at(rotation).ref;
    return fnv(ref.data(), ref.size() * sizeof(double), 0x5ec7e7);
  }

  std::vector<harness::OutputCheck> check(int rotation, const std::vector<harness::Tolerance>& tolerances,
                                          uint64_t) override {
    const harness::Tolerance& tol = tolerances.at(0);
    Rotation& r = at(rotation);
    harness::OutputCheck c;
    c.output = "y";
    c.elements = n_;
    for (int i = 0; i < n_; ++i) {
      const double err = std::fabs(r.y[i] - r.ref[i]);
      if (!std::isfinite(r.y[i])) ++c.nonfinite;
      else if (err > tol.abs && err > tol.rel * std::fabs(r.ref[i])) ++c.mismatches;
      if (std::isfinite(err)) c.max_abs_err = std::max(c.max_abs_err, err);
      if (c.detail.empty() && !(err <= tol.abs || err <= tol.rel * std::fabs(r.ref[i])))
        c.detail = "y[" + std::to_string(i) + "]=" + std::to_string(r.y[i]) + " ref=" + std::to_string(r.ref[i]);
    }
    c.pass = c.mismatches == 0 && c.nonfinite == 0;
    return {c};
  }

  const void* params(int rotation, size_t* size) override {
    *size = sizeof(int);
    return &at(rotation).index;
  }

  static double truth(uint32_t x) { return 0.5 * x + 1; }
  Rotation& at(int rotation) { return rot_.at(static_cast<size_t>(rotation)); }
  int rotations() const { return static_cast<int>(rot_.size()); }
  int n() const { return n_; }

 private:
  static int n_of(const json& params) { return params.value("n", 16); }
  int n_ = 0;
  std::vector<Rotation> rot_;
};

// One launch as a kernel sees it.
struct Launch {
  std::string slot;
  int rotation = 0;
  bool timed = false;
  long long number = 0;   // launches of this slot so far (0-based), eager and timed
  long long timed_number = 0;
};

class FakeDevice;
using Kernel = std::function<void(FakeDevice&, FakeProblem&, const Launch&)>;

// The honest kernel: y = 0.5 x + 1 exactly.
inline void honest(FakeDevice&, FakeProblem& p, const Launch& l) {
  auto& r = p.at(l.rotation);
  for (int i = 0; i < p.n(); ++i) r.y[i] = FakeProblem::truth(r.x[i]);
}

class FakeDevice final : public harness::Device {
 public:
  explicit FakeDevice(FakeProblem& problem) : problem_(problem) {}

  std::map<std::string, Kernel> kernels;                        // artifact name -> kernel
  std::map<std::string, std::map<std::string, double>> initial;  // artifact -> module variables at load
  std::map<std::string, std::map<std::string, double>> vars;     // slot -> module variables now
  std::map<std::string, long long> launches, timed_launches;     // per slot, since its load
  std::map<std::string, int> loads;                              // per slot
  size_t cache = 1024;

  json info() override { return json{{"name", "fake"}, {"kind", "fake"}}; }
  size_t cache_bytes() override { return cache; }

  void load(const std::string& slot, const std::string& artifact) override {
    slots_.erase(slot);
    auto it = kernels.find(artifact);
    if (it == kernels.end()) throw harness::HarnessError("load_error", "no fake kernel " + artifact, slot);
    slots_[slot] = it->second;
    vars[slot] = initial.count(artifact) ? initial[artifact] : std::map<std::string, double>{};
    launches[slot] = timed_launches[slot] = 0;   // a fresh module counts from zero
    ++loads[slot];
  }
  bool loaded(const std::string& slot) const override { return slots_.count(slot) != 0; }
  void bind(const std::string& slot, harness::Problem&, int, double) override { bound_.insert(slot); }
  void unbind_all() override { bound_.clear(); }
  json signature = nullptr, occupancy = nullptr;   // what "launch" reports of a bound slot
  json launch_signature(const std::string&) override { return signature; }
  json launch_occupancy(const std::string&) override { return occupancy; }

  void run(const std::string& slot, int rotation) override { launch(slot, rotation, false); }
  double time_once(const std::string& slot, int rotation, bool) override {
    launch(slot, rotation, true);
    return 10.0 + 0.01 * static_cast<double>(timed_launches[slot] % 7);
  }

  std::vector<harness::ModuleVariable> module_state(const std::string& slot) override {
    std::vector<harness::ModuleVariable> out;
    for (const auto& [name, value] : vars.at(slot))
      out.push_back({name, ".nv.global", sizeof(double), fnv(&value, sizeof value)});
    return out;
  }

  double sm_clock_mhz() override { return 1000; }
  double default_sm_clock_mhz() override { return 1000; }
  double temperature_c() override { return -1; }
  void synchronize() override {}

 private:
  void launch(const std::string& slot, int rotation, bool timed) {
    if (!bound_.count(slot)) throw harness::HarnessError("bad_request", "slot '" + slot + "' is not bound", slot);
    Launch l{slot, rotation, timed, launches[slot]++, timed ? timed_launches[slot]++ : timed_launches[slot]};
    slots_.at(slot)(*this, problem_, l);
  }

  FakeProblem& problem_;
  std::map<std::string, Kernel> slots_;
  std::set<std::string> bound_;
};

inline json fake_tolerances() { return json::array({json{{"output", "y"}, {"abs", 1e-9}, {"rel", 0.0}}}); }

// A bench of `slots` that runs exactly `rounds` rounds (the CI target is never met).
inline json fake_bench(const std::vector<std::string>& slots, long long rounds, bool deterministic = true) {
  return json{{"cmd", "bench"},        {"slots", slots},
              {"workload", {{"name", "w"}, {"params", {{"n", 16}}}}},
              {"seed", 11},            {"cold", true},
              {"deterministic", deterministic},
              {"min_samples", 10},     {"min_seconds", 0.0},
              {"max_seconds", 30.0},   {"max_samples", rounds},
              {"target_rel_ci", -1.0},
              {"replay_check", {{"tolerances", fake_tolerances()}}}};
}

inline json fake_verify(const std::string& slot, bool deterministic = true) {
  return json{{"cmd", "verify"}, {"slot", slot}, {"workload", {{"name", "w"}, {"params", {{"n", 16}}}}},
              {"seed", 5},       {"tolerances", fake_tolerances()}, {"deterministic", deterministic}};
}

}  // namespace ar::test
