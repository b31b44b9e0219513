#pragma once
// Shared helpers for a package's problem source (problem.h), host side: the
// generic parts every package needs and none should copy: a seeded random
// stream, reading workload params with messages that name them, poison,
// aligned buffers, fingerprints, and the element-by-element comparison that
// fills an OutputCheck. Header-only so a package's protected sources stay the
// only thing it compiles; used by `autoresearch init`'s templates.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "autoresearch/harness/element_check.h"
#include "autoresearch/harness/problem.h"

namespace ar::harness::kit {

// splitmix64: small, fast, and the same stream everywhere for a given seed.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }   // [0, 1)
  int integer(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<uint64_t>(hi - lo + 1)); }
  double normal() {   // Box-Muller; one value per call keeps streams simple
    const double u1 = uniform01() + 0x1.0p-54, u2 = uniform01();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  uint64_t state_;
};

// An integer workload param in [lo, hi]; a missing one is an error unless
// `fallback` is given. Throws ProblemError naming the param.
inline long long read_int_param(const nlohmann::json& params, const char* key, long long lo, long long hi,
                                const long long* fallback = nullptr) {
  auto it = params.find(key);
  if (it == params.end()) {
    if (!fallback) throw ProblemError(std::string("workload param '") + key + "' is missing");
    return *fallback;
  }
  const double v = it->is_number() ? it->get<double>() : std::nan("");
  if (!(v >= static_cast<double>(lo) && v <= static_cast<double>(hi)) || v != std::floor(v))
    throw ProblemError(std::string("workload param '") + key + "': expected an integer in [" + std::to_string(lo) +
                       ", " + std::to_string(hi) + "], got " + it->dump());
  return static_cast<long long>(v);
}

// The params must be an object naming only `known` keys: a typo in the
// manifest is an error here, not a silently defaulted size.
inline void require_known_params(const nlohmann::json& params, const std::vector<std::string>& known) {
  if (!params.is_object()) throw ProblemError("workload params: expected an object, got " + params.dump());
  for (const auto& [key, value] : params.items()) {
    bool ok = false;
    for (const auto& k : known) ok = ok || k == key;
    if (ok) continue;
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    throw ProblemError("workload param '" + key + "' is not one this problem reads (it reads: " + list + ")");
  }
}

// A quiet NaN with a payload: arithmetic on it stays NaN, and an element still
// holding exactly these bits was provably never written.
inline constexpr uint32_t kPoisonF32Bits = 0x7fc0dead;
inline float poison_f32() {
  float f;
  std::memcpy(&f, &kPoisonF32Bits, sizeof f);
  return f;
}

// 64-byte aligned host memory, so vector loads never straddle a line by our doing.
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
template <typename T>
using HostBuffer = std::unique_ptr<T[], FreeDeleter>;
template <typename T>
HostBuffer<T> allocate_host(size_t count) {
  const size_t bytes = (count * sizeof(T) + 63) / 64 * 64;
  auto* p = static_cast<T*>(std::aligned_alloc(64, bytes == 0 ? 64 : bytes));
  if (!p) throw std::bad_alloc();
  return HostBuffer<T>(p);
}

// FNV-1a over the bytes of several buffers, as 16 hex digits.
struct Bytes {
  const void* data;
  size_t size;
};
inline std::string fnv1a(std::initializer_list<Bytes> buffers) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const auto& b : buffers) {
    const auto* p = static_cast<const unsigned char*>(b.data);
    for (size_t i = 0; i < b.size; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

// The tolerance the manifest gives `output`; none is a ProblemError.
inline const Tolerance& tolerance_for(const std::vector<Tolerance>& tolerances, const std::string& output) {
  for (const auto& t : tolerances)
    if (t.output == output) return t;
  throw ProblemError("no tolerance given for output '" + output + "' (manifest.json: tolerances)");
}

// One output against its reference, element by element (check_element's
// rule), into an OutputCheck: worst errors, mismatches, non-finite values,
// 1 - cos(out, ref) over the finite pairs, and the first failing element.
class OutputComparison {
 public:
  OutputComparison(std::string output, const Tolerance& tol) : tol_(tol) { check_.output = std::move(output); }

  // `where(detail)` is called for the first failing element only, to name it
  // ("out[17]"), so the common path formats nothing.
  template <typename Where>
  void add(double cand, double ref, Where&& where) {
    ++check_.elements;
    const ElementCheck e = check_element(cand, ref, tol_.abs, tol_.rel);
    if (!e.pass) {
      if (e.finite_pair) ++check_.mismatches;
      else ++check_.nonfinite;
      if (check_.detail.empty()) {
        char text[96];
        std::snprintf(text, sizeof text, "=%.9g ref=%.9g", cand, ref);
        check_.detail = where() + text;
      }
    }
    if (!e.finite_pair) return;
    check_.max_abs_err = std::max(check_.max_abs_err, e.abs_err);
    check_.max_rel_err = std::max(check_.max_rel_err, e.rel_err);
    dot_ += cand * ref;
    cand_sq_ += cand * cand;
    ref_sq_ += ref * ref;
  }
  // Something the element rule cannot see (a write outside the output, changed inputs).
  void fail(const std::string& detail, long long count = 1) {
    check_.mismatches += count;
    if (check_.detail.empty()) check_.detail = detail;
  }

  OutputCheck finish() {
    if (cand_sq_ > 0 && ref_sq_ > 0) check_.cosine_diff = std::max(0.0, 1.0 - dot_ / std::sqrt(cand_sq_ * ref_sq_));
    else check_.cosine_diff = cand_sq_ == ref_sq_ ? 0.0 : 1.0;
    const bool cosine_ok = tol_.cosine < 0 || check_.cosine_diff <= tol_.cosine;
    if (!cosine_ok && check_.detail.empty()) {
      char text[96];
      std::snprintf(text, sizeof text, "1 - cos(%s, ref) = %.3g > %.3g", check_.output.c_str(), check_.cosine_diff,
                    tol_.cosine);
      check_.detail = text;
    }
    check_.pass = check_.mismatches == 0 && check_.nonfinite == 0 && cosine_ok;
    return check_;
  }

 private:
  Tolerance tol_;
  OutputCheck check_;
  double dot_ = 0, cand_sq_ = 0, ref_sq_ = 0;
};

// rotations[r], or a ProblemError when r was not prepared.
template <typename T>
T& rotation_at(std::vector<T>& rotations, int r) {
  if (r < 0 || static_cast<size_t>(r) >= rotations.size())
    throw ProblemError("rotation " + std::to_string(r) + " was not prepared");
  return rotations[static_cast<size_t>(r)];
}

}  // namespace ar::harness::kit
