// Hidden workloads are drawn fresh for every full verification from the
// manifest's declared ranges, so a kernel cannot special-case the shapes it was
// shown. They live only in memory and in the run's log, never in the worktree
// or in what agents read.
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "steps.h"

namespace ar {

std::vector<Workload> draw_hidden_workloads(const Manifest& m, int count, unsigned long long seed) {
  std::vector<Workload> out;
  std::mt19937_64 rng(seed);
  for (int i = 0; i < count; ++i) {
    Workload w;
    w.name = fmt::format("hidden-{}", i + 1);
    w.hidden = true;
    w.params = nlohmann::json::object();
    for (const auto& [name, p] : m.hidden.params) {
      switch (p.kind) {
        case HiddenParam::Fixed: w.params[name] = p.fixed; break;
        case HiddenParam::IntRange:
          w.params[name] = std::uniform_int_distribution<long long>(p.lo, p.hi)(rng);
          break;
        case HiddenParam::LogIntRange: {
          std::uniform_real_distribution<double> u(std::log(double(p.lo)), std::log(double(p.hi) + 1));
          long long v = static_cast<long long>(std::floor(std::exp(u(rng))));
          w.params[name] = std::clamp(v, p.lo, p.hi);
          break;
        }
        case HiddenParam::Choice:
          w.params[name] = p.choices[std::uniform_int_distribution<size_t>(0, p.choices.size() - 1)(rng)];
          break;
      }
    }
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace ar
