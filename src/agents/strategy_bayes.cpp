// Bayes, Bayesian optimisation over the discrete space (as Kernel Tuner's and
// scikit-optimize's GP minimisers): a Gaussian process models the log of the
// quick-geomean time over the tunables' positions along their declared lists;
// the next proposal is the untried configuration of highest expected
// improvement over the best time measured. The first proposals are the start's
// one-step neighbours, not random points: a package's defaults are a human's
// good guess, the best configuration is often a step or two away, and the
// model needs a few points to know which tunables matter. Failures (a build
// error, a wrong result, a launch error) are modelled as slow (with the slower
// half of the times, below), so the search leaves a region that does not work.
#include <algorithm>
#include <cmath>

#include "autoresearch/agents/gaussian_process.h"
#include "autoresearch/agents/tuner.h"
#include "autoresearch/core/manifest.h"
#include "random_draw.h"

namespace ar {

namespace {
constexpr double kXi = 0.01;                // the improvement sought, in log time (1%)
constexpr size_t kMaxCandidates = 4096;     // configurations scored per proposal at most
// The hyperparameters are chosen again for every proposal up to kAlwaysRefit
// points, then whenever the data grew by a quarter (each choice is ~40 fits).
constexpr size_t kAlwaysRefit = 48;
constexpr double kRefitGrowth = 1.25;
constexpr size_t kNeighbourParents = 4;     // a sampled candidate set also holds the best points' neighbours
constexpr size_t kMaxObservations = 256;    // points the model is fitted to at most
}  // namespace

std::vector<double> Tuner::bayes_features(const Tunables& t) const {
  std::vector<size_t> idx = space_.indices(t);
  std::vector<double> x;
  for (size_t d = 0; d < m_.tunables.size(); ++d) {
    const size_t n = m_.tunables[d].values.size();
    if (n > 1) x.push_back(static_cast<double>(idx[d]) / static_cast<double>(n - 1));
  }
  return x;
}

std::vector<Tunables> Tuner::bayes_candidates() {
  if (!bayes_codes_ready_) {
    bayes_codes_ready_ = true;
    if (space_.size() <= static_cast<double>(1 << 20)) bayes_codes_ = space_.feasible_codes();
  }
  std::vector<Tunables> out;
  if (!bayes_codes_.empty() && bayes_codes_.size() <= kMaxCandidates) {
    for (uint64_t code : bayes_codes_) {
      Tunables t = space_.decode(code);
      if (usable(t)) out.push_back(std::move(t));
    }
    return out;
  }
  // Too many to score each time: a uniform sample, plus the neighbourhoods of
  // the best points, where expected improvement usually peaks.
  std::set<std::string> taken;
  auto add = [&](Tunables t) {
    if (usable(t) && taken.insert(canonical(t)).second) out.push_back(std::move(t));
  };
  std::vector<std::pair<Tunables, double>> best = scored_;
  std::sort(best.begin(), best.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  for (size_t i = 0; i < best.size() && i < kNeighbourParents; ++i)
    for (Tunables& t : space_.neighbours(best[i].first)) add(std::move(t));
  for (size_t draws = 0; out.size() < kMaxCandidates && draws < 8 * kMaxCandidates; ++draws) {
    if (!bayes_codes_.empty()) {
      add(space_.decode(bayes_codes_[detail::uniform_index(rng_, bayes_codes_.size())]));
    } else {
      add(space_.random_point(rng_));
    }
  }
  return out;
}

std::optional<Tunables> Tuner::next_bayes(const AgentContext& ctx) {
  size_t free_dims = 0;
  for (const Tunable& t : m_.tunables) free_dims += t.values.size() > 1;
  // The initial design stays around the configuration the search started
  // from, even when one of its neighbours is kept meanwhile.
  if (!bayes_centre_) bayes_centre_ = incumbent_;
  if (explored_ < static_cast<int>(free_dims) + 1) {
    if (auto t = explore_near(*bayes_centre_)) return t;
  }

  // The observations: every configuration with a time, the incumbent (whose
  // time the driver reports) and the failures.
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  bool incumbent_scored = false;
  for (const auto& [t, us] : scored_) {
    x.push_back(bayes_features(t));
    y.push_back(std::log(us));
    incumbent_scored = incumbent_scored || t == incumbent_;
  }
  if (!incumbent_scored && ctx.incumbent_quick_geomean_us && *ctx.incumbent_quick_geomean_us > 0) {
    x.push_back(bayes_features(incumbent_));
    y.push_back(std::log(*ctx.incumbent_quick_geomean_us));
  }
  if (y.size() < 2) return next_random();
  const double best = *std::min_element(y.begin(), y.end());
  // Times spread over orders of magnitude (a wrong loop order is 20x slower):
  // a stationary model fitted to all of them spends itself on the cliff and
  // flattens the region that matters. The worse half is clipped to the
  // median, so the model resolves the fast half; the failures join it there.
  std::vector<double> sorted = y;
  std::sort(sorted.begin(), sorted.end());
  const double clip = sorted[(sorted.size() - 1) / 2];
  for (double& v : y) v = std::min(v, clip);
  for (const Tunables& t : failed_) {
    x.push_back(bayes_features(t));
    y.push_back(clip);
  }
  const size_t observed = y.size();
  // A long night on a large space: the fit is O(n^3), so it keeps the fastest
  // points (the clipped rest says little but "not here") and an even spread
  // of the others, at most kMaxObservations in all.
  if (y.size() > kMaxObservations) {
    std::vector<size_t> order(y.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return y[a] < y[b]; });
    const size_t fast = kMaxObservations / 2, rest = order.size() - fast;
    std::vector<std::vector<double>> kept_x;
    std::vector<double> kept_y;
    for (size_t i = 0; i < kMaxObservations; ++i) {
      const size_t at = i < fast ? i : fast + (i - fast) * rest / (kMaxObservations - fast);
      kept_x.push_back(std::move(x[order[at]]));
      kept_y.push_back(y[order[at]]);
    }
    x = std::move(kept_x);
    y = std::move(kept_y);
  }

  if (!bayes_hyper_ || observed <= kAlwaysRefit ||
      static_cast<double>(observed) >= kRefitGrowth * static_cast<double>(bayes_refit_size_)) {
    bayes_hyper_ = select_hyperparameters(x, y);
    bayes_refit_size_ = observed;
  }
  auto gp = GaussianProcess::fit(x, y, *bayes_hyper_);
  if (!gp) return next_random();

  std::optional<Tunables> pick;
  double pick_ei = 0;
  for (Tunables& t : bayes_candidates()) {
    const double ei = expected_improvement(gp->predict(bayes_features(t)), best, kXi);
    if (ei > pick_ei) {
      pick_ei = ei;
      pick = std::move(t);
    }
  }
  if (pick) return pick;
  // The model expects nothing better anywhere untried: finish the best
  // neighbourhoods, then the rest at random (exact exhaustion on small spaces).
  if (auto t = sweep_best_neighbourhoods()) return t;
  return next_random();
}

}  // namespace ar
