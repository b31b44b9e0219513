#pragma once
// Draws from the tuner's generator without std::uniform_*_distribution, whose
// output differs between standard libraries: a seed must name the same search
// everywhere (a run resumed on another machine, a strategy comparison rerun).
#include <cstdint>
#include <random>

namespace ar::detail {

// Uniform in [0, n); n > 0. Rejects the biased tail instead of taking a plain modulo.
inline uint64_t uniform_index(std::mt19937_64& rng, uint64_t n) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x;
  do {
    x = rng();
  } while (x >= limit);
  return x % n;
}

// Uniform in [0, 1) from the top 53 bits.
inline double uniform_unit(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

inline bool chance(std::mt19937_64& rng, double p) { return uniform_unit(rng) < p; }

}  // namespace ar::detail
