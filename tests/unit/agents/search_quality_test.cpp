// Search quality on a synthetic objective: the model-guided strategy must reach a
// near-optimal configuration in clearly fewer evaluations than random search.
// (SPEC §8 asks ≥5x on the real sparse_mla space; that comparison replays a
// measured space and is a later issue. This pins the behaviour in CI.)
#include <cmath>
#include <cstdio>
#include <limits>

#include "autoresearch/agents/tuner.h"
#include "tuner_fixtures.h"

namespace ar {
namespace {

// 7 x 6 x 4 x 4 x 3 = 2016 points; the constraints cut a few regions out.
Manifest quality_manifest() {
  Manifest m;
  m.name = "synthetic";
  m.tunables = {{"BM", {16, 32, 64, 128, 256, 512, 1024}, 16, ""},
                {"BN", {16, 32, 64, 128, 256, 512}, 512, ""},
                {"WARPS", {1, 2, 4, 8}, 1, ""},
                {"STAGES", {1, 2, 3, 4}, 1, ""},
                {"SPLIT", {1, 2, 4}, 4, ""}};
  m.constraints.push_back(test::parse_expr("BM * BN <= 65536"));
  m.constraints.push_back(test::parse_expr("!(WARPS == 8 && STAGES == 4)"));
  m.constraints.push_back(test::parse_expr("BM / WARPS >= 8"));
  return m;
}

// A tilted bowl over the list positions with a coupling between BM and BN, like
// tile shapes trading against each other; minimum near BM=128, BN=64..128.
double true_time(const SearchSpace& space, const Tunables& t) {
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
double measured_time(const SearchSpace& space, const Tunables& t) {
  uint64_t h = std::hash<std::string>{}(canonical(t)) * 0x9E3779B97F4A7C15ull;
  double u = static_cast<double>(h >> 11) * 0x1.0p-53;
  return true_time(space, t) * (1 + 0.03 * (u - 0.5));
}

// Pretend the largest tiles with a split-K of 4 run out of registers.
bool fails_to_build(const Tunables& t) { return t.at("SPLIT") == 4 && t.at("BM") >= 512; }

// Evaluations (proposals judged) until one lands within 5% of the true optimum;
// the incumbent moves to every configuration measured faster, as keeps would.
int evaluations_to_target(const Manifest& m, Strategy s, unsigned long long seed, double target) {
  SearchSpace space(m);
  ResultCache cache;
  Tuner tuner(m, s, seed, &cache);
  tuner.set_context_key("synthetic");
  AgentContext ctx;
  ctx.manifest = &m;
  ctx.incumbent_tunables = test::defaults_of(m);
  double incumbent_us = measured_time(space, ctx.incumbent_tunables);
  for (int n = 1;; ++n) {
    std::vector<Proposal> got = tuner.propose(ctx, 1);
    REQUIRE(got.size() == 1);  // the target exists, so the space cannot run out first
    const Tunables& t = got[0].tunables;
    REQUIRE(space.feasible(t));
    Outcome o;
    if (fails_to_build(t)) {
      o.decision = Decision::BuildError;
    } else {
      o.quick_geomean_us = measured_time(space, t);
      o.decision = *o.quick_geomean_us < incumbent_us ? Decision::Keep : Decision::Discard;
    }
    tuner.observe(got[0], o);
    cache.add({"synthetic", t, o, {}, "sim", n});
    if (o.decision == Decision::Keep) {
      ctx.incumbent_tunables = t;
      incumbent_us = *o.quick_geomean_us;
    }
    if (!fails_to_build(t) && true_time(space, t) <= target) return n;
  }
}

TEST_CASE("evolution reaches within 5% of the optimum in fewer evaluations than random") {
  Manifest m = quality_manifest();
  SearchSpace space(m);
  double optimum = std::numeric_limits<double>::infinity();
  size_t feasible = 0, near_optimal = 0;
  std::vector<uint64_t> codes = space.feasible_codes();
  for (uint64_t code : codes) {
    Tunables t = space.decode(code);
    if (!fails_to_build(t)) optimum = std::min(optimum, true_time(space, t));
  }
  const double target = optimum * 1.05;
  for (uint64_t code : codes) {
    Tunables t = space.decode(code);
    ++feasible;
    if (!fails_to_build(t) && true_time(space, t) <= target) ++near_optimal;
  }
  REQUIRE(near_optimal >= 1);
  REQUIRE(space.feasible(test::defaults_of(m)));

  const int seeds = 20;
  double random_total = 0, evolution_total = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    random_total += evaluations_to_target(m, Strategy::Random, seed, target);
    evolution_total += evaluations_to_target(m, Strategy::Evolution, seed, target);
  }
  const double ratio = random_total / evolution_total;
  std::printf(
      "search quality: %zu feasible points, %zu within 5%% of the optimum; mean evaluations "
      "random %.1f, evolution %.1f, ratio %.2fx\n",
      feasible, near_optimal, random_total / seeds, evolution_total / seeds, ratio);
  CHECK(ratio >= 2.0);
}

}  // namespace
}  // namespace ar
