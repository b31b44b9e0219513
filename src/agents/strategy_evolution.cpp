// Evolution, the model-guided strategy: a steady-state evolutionary search whose
// model is the scored population itself. It breeds from the fittest
// configurations measured (lowest quick geomean), moves mostly to neighbouring
// values (tunables usually act smoothly along their declared order) and stays
// near the incumbent and the best, where the next win most likely is.
#include <algorithm>
#include <numeric>

#include "autoresearch/agents/tuner.h"
#include "autoresearch/core/manifest.h"
#include "random_draw.h"

namespace ar {

namespace {
constexpr double kPickBest = 0.35;       // parent = best scored configuration
constexpr double kPickIncumbent = 0.15;  // parent = the incumbent
constexpr double kCrossover = 0.20;      // uniform crossover of two parents
constexpr double kTwoGenes = 0.30;       // mutate two tunables instead of one
constexpr double kRandomValue = 0.10;    // jump to any value instead of a neighbour
constexpr double kLongStep = 0.20;       // step two places along the list
constexpr double kGlobal = 0.10;         // a uniformly random point, to find other basins
constexpr size_t kTournament = 4;
constexpr int kBreedAttempts = 64;       // then fall back to a systematic sweep
constexpr size_t kSweepParents = 4;
}  // namespace

std::optional<Tunables> Tuner::next_evolution(const AgentContext& ctx) {
  // When the incumbent is the best configuration known (the driver reports its
  // fitness; it was kept, or it is the start), its one-step neighbourhood is
  // where the next win most likely is: sweep all of it before breeding, with every fourth proposal a random point
  // for the global picture. A keep moves the incumbent and starts a new sweep.
  // (Breeding only from measured losers once missed a one-step gain next to the
  // start for a whole run.)
  ++proposals_;
  double best_scored = 1e300;
  for (const auto& [t, fitness] : scored_) best_scored = std::min(best_scored, fitness);
  bool incumbent_is_best = scored_.empty() || (ctx.incumbent_quick_geomean_us &&
                                               *ctx.incumbent_quick_geomean_us <= best_scored);
  if (incumbent_is_best && proposals_ % 4 != 0)
    if (auto t = explore_near(incumbent_)) return t;
  const int warmup = 2 + static_cast<int>(m_.tunables.size());
  if (explored_ < warmup || scored_.empty()) return next_random();
  if (detail::chance(rng_, kGlobal)) return next_random();
  if (auto t = breed()) return t;
  if (auto t = sweep_best_neighbourhoods()) return t;
  return next_random();  // exact exhaustion on small spaces
}

std::optional<Tunables> Tuner::explore_near(const Tunables& centre) {
  std::vector<Tunables> options;
  for (Tunables& t : space_.neighbours(centre)) {
    if (usable(t)) options.push_back(std::move(t));
  }
  if (options.empty()) return std::nullopt;
  return options[detail::uniform_index(rng_, options.size())];
}

std::optional<Tunables> Tuner::breed() {
  auto best = [&]() -> const Tunables& {
    return std::min_element(scored_.begin(), scored_.end(),
                            [](const auto& a, const auto& b) { return a.second < b.second; })
        ->first;
  };
  for (int attempt = 0; attempt < kBreedAttempts; ++attempt) {
    double r = detail::uniform_unit(rng_);
    const Tunables& parent = r < kPickBest                  ? best()
                             : r < kPickBest + kPickIncumbent ? incumbent_
                                                              : tournament();
    Tunables child;
    if (scored_.size() >= 2 && detail::chance(rng_, kCrossover)) {
      const Tunables& other = tournament();
      for (const auto& [name, value] : parent) {
        auto it = other.find(name);
        child[name] = it != other.end() && detail::chance(rng_, 0.5) ? it->second : value;
      }
      if (child == parent || child == other) child = mutate(std::move(child));
    } else {
      child = mutate(parent);
    }
    if (usable(child)) return child;
  }
  return std::nullopt;
}

// Every neighbour of the best configurations, best first: when random breeding
// keeps hitting known points the search is converging, and this finishes the
// local optimum's neighbourhood deterministically.
std::optional<Tunables> Tuner::sweep_best_neighbourhoods() {
  std::vector<size_t> order(scored_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return scored_[a].second < scored_[b].second; });
  if (order.size() > kSweepParents) order.resize(kSweepParents);
  for (size_t i : order) {
    for (Tunables& t : space_.neighbours(scored_[i].first)) {
      if (usable(t)) return t;
    }
  }
  return std::nullopt;
}

const Tunables& Tuner::tournament() {
  size_t winner = detail::uniform_index(rng_, scored_.size());
  for (size_t k = 1; k < kTournament; ++k) {
    size_t other = detail::uniform_index(rng_, scored_.size());
    if (scored_[other].second < scored_[winner].second) winner = other;
  }
  return scored_[winner].first;
}

Tunables Tuner::mutate(Tunables t) {
  std::vector<size_t> idx = space_.indices(t);
  std::vector<size_t> movable;  // tunables with a choice to make
  for (size_t d = 0; d < m_.tunables.size(); ++d) {
    if (m_.tunables[d].values.size() > 1) movable.push_back(d);
  }
  if (movable.empty()) return t;
  size_t genes = std::min<size_t>(detail::chance(rng_, kTwoGenes) ? 2 : 1, movable.size());
  for (size_t g = 0; g < genes; ++g) {
    size_t pick = g + detail::uniform_index(rng_, movable.size() - g);  // distinct tunables
    std::swap(movable[g], movable[pick]);
    size_t d = movable[g];
    auto n = static_cast<long long>(m_.tunables[d].values.size());
    auto cur = static_cast<long long>(idx[d]);
    long long next;
    if (detail::chance(rng_, kRandomValue)) {
      next = static_cast<long long>(detail::uniform_index(rng_, n - 1));
      if (next >= cur) ++next;  // any value but the current one
    } else {
      long long step = (detail::chance(rng_, 0.5) ? 1 : -1) * (detail::chance(rng_, kLongStep) ? 2 : 1);
      next = cur + step;
      if (next < 0 || next >= n) next = cur - step;  // bounce off the end of the list
      next = std::clamp(next, 0LL, n - 1);
      if (next == cur) next = cur == 0 ? 1 : cur - 1;  // a long step on a short list
    }
    idx[d] = static_cast<size_t>(next);
  }
  return space_.at(idx);
}

}  // namespace ar
