#pragma once
// The hard synthetic tunable space two tests search: search_quality_test.cpp
// drives the tuner on it directly, simulation_test.cpp replays it as a
// measured-space file. 7 x 6 x 4 x 4 x 3 = 2016 points; the constraints cut a
// few regions out, and the largest tiles with a split-K of 4 do not build.
#include <cstdint>
#include <functional>
#include <vector>

#include "autoresearch/agents/tuner.h"
#include "tuner_fixtures.h"

namespace ar::test {

inline Manifest synthetic_manifest() {
  Manifest m;
  m.name = "synthetic";
  m.tunables = {{"BM", {16, 32, 64, 128, 256, 512, 1024}, 16, ""},
                {"BN", {16, 32, 64, 128, 256, 512}, 512, ""},
                {"WARPS", {1, 2, 4, 8}, 1, ""},
                {"STAGES", {1, 2, 3, 4}, 1, ""},
                {"SPLIT", {1, 2, 4}, 4, ""}};
  m.constraints.push_back(parse_expr("BM * BN <= 65536"));
  m.constraints.push_back(parse_expr("!(WARPS == 8 && STAGES == 4)"));
  m.constraints.push_back(parse_expr("BM / WARPS >= 8"));
  return m;
}

// A tilted bowl over the list positions with a coupling between BM and BN, like
// tile shapes trading against each other; minimum near BM=128, BN=64..128.
inline double synthetic_true_us(const SearchSpace& space, const Tunables& t) {
  static const double centre[] = {3.4, 2.6, 2.2, 2.7, 0.8};
  static const double weight[] = {0.08, 0.10, 0.15, 0.12, 0.20};
  std::vector<size_t> idx = space.indices(t);
  double bowl = 0;
  for (size_t d = 0; d < idx.size(); ++d) {
    double x = static_cast<double>(idx[d]) - centre[d];
    bowl += weight[d] * x * x;
  }
  bowl += 0.05 * (idx[0] - centre[0]) * (idx[1] - centre[1]);
  return 100 * (1 + bowl);
}

// Measurement noise of ±1.5%, fixed per configuration (it is never re-measured).
inline double synthetic_measured_us(const SearchSpace& space, const Tunables& t) {
  uint64_t h = std::hash<std::string>{}(canonical(t)) * 0x9E3779B97F4A7C15ull;
  double u = static_cast<double>(h >> 11) * 0x1.0p-53;
  return synthetic_true_us(space, t) * (1 + 0.03 * (u - 0.5));
}

// Pretend the largest tiles with a split-K of 4 run out of registers.
inline bool synthetic_fails_to_build(const Tunables& t) { return t.at("SPLIT") == 4 && t.at("BM") >= 512; }

}  // namespace ar::test
