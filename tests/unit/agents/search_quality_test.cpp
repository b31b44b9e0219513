// Search quality on a synthetic objective: the model-guided strategies must reach
// a near-optimal configuration in clearly fewer evaluations than random search.
// (SPEC §8's ≥5x is judged on the measured sparse_mla space, replayed by
// space_regression_test.cpp; this pins the behaviour on a smooth bowl.)
#include <cmath>
#include <cstdio>
#include <limits>

#include "autoresearch/agents/tuner.h"
#include "synthetic_space.h"

namespace ar {
namespace {

using test::synthetic_fails_to_build;
using test::synthetic_manifest;
using test::synthetic_measured_us;
using test::synthetic_true_us;

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
  double incumbent_us = synthetic_measured_us(space, ctx.incumbent_tunables);
  for (int n = 1;; ++n) {
    std::vector<Proposal> got = tuner.propose(ctx, 1);
    REQUIRE(got.size() == 1);  // the target exists, so the space cannot run out first
    const Tunables& t = got[0].tunables;
    REQUIRE(space.feasible(t));
    Outcome o;
    if (synthetic_fails_to_build(t)) {
      o.decision = Decision::BuildError;
    } else {
      o.quick_geomean_us = synthetic_measured_us(space, t);
      o.decision = *o.quick_geomean_us < incumbent_us ? Decision::Keep : Decision::Discard;
    }
    tuner.observe(got[0], o);
    cache.add({"synthetic", t, o, {}, "sim", n});
    if (o.decision == Decision::Keep) {
      ctx.incumbent_tunables = t;
      incumbent_us = *o.quick_geomean_us;
    }
    if (!synthetic_fails_to_build(t) && synthetic_true_us(space, t) <= target) return n;
  }
}

TEST_CASE("the model-guided strategies reach within 5% of the optimum in fewer evaluations than random") {
  Manifest m = synthetic_manifest();
  SearchSpace space(m);
  double optimum = std::numeric_limits<double>::infinity();
  size_t feasible = 0, near_optimal = 0;
  std::vector<uint64_t> codes = space.feasible_codes();
  for (uint64_t code : codes) {
    Tunables t = space.decode(code);
    if (!synthetic_fails_to_build(t)) optimum = std::min(optimum, synthetic_true_us(space, t));
  }
  const double target = optimum * 1.05;
  for (uint64_t code : codes) {
    Tunables t = space.decode(code);
    ++feasible;
    if (!synthetic_fails_to_build(t) && synthetic_true_us(space, t) <= target) ++near_optimal;
  }
  REQUIRE(near_optimal >= 1);
  REQUIRE(space.feasible(test::defaults_of(m)));

  const int seeds = 20;
  double random_total = 0;
  for (int seed = 1; seed <= seeds; ++seed) random_total += evaluations_to_target(m, Strategy::Random, seed, target);
  for (Strategy s : {Strategy::Evolution, Strategy::Bayes}) {
    double total = 0;
    for (int seed = 1; seed <= seeds; ++seed) total += evaluations_to_target(m, s, seed, target);
    const double ratio = random_total / total;
    std::printf(
        "search quality: %zu feasible points, %zu within 5%% of the optimum; mean evaluations "
        "random %.1f, %s %.1f, ratio %.2fx\n",
        feasible, near_optimal, random_total / seeds, strategy_name(s), total / seeds, ratio);
    CHECK(ratio >= 2.0);
  }
}

}  // namespace
}  // namespace ar
