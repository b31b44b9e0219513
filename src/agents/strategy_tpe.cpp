// TPE, the tree-structured Parzen estimator (Bergstra et al. 2011, the default
// sampler of Optuna) over the discrete space: the configurations measured so
// far are split by a quantile of their times into good and bad; each tunable
// gets a Parzen estimator (a kernel per observation along the declared order of
// values, plus a flat prior) for the good, l(x), and for the bad, g(x); the
// next proposal is the candidate drawn from l with the highest l(x)/g(x).
// Failures (a build error, a wrong result) join the bad side: a region that
// does not build is a region to leave. The tunables are treated as ordinal,
// since neighbouring declared values usually act alike; a short list
// (LOOP_ORDER 0, 1, 2) makes the kernel nearly categorical anyway.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "autoresearch/agents/tuner.h"
#include "autoresearch/core/manifest.h"
#include "random_draw.h"

namespace ar {

namespace {
// Chosen on the committed matmul_cpu space over 200 seeds (kernels/matmul_cpu/
// spaces/README.md): fewer candidates and a narrower kernel than Optuna's
// defaults (24, and a bandwidth from the data) exploit more, which pays on
// spaces of a few hundred points where a night is a few dozen evaluations.
constexpr int kCandidates = 12;          // draws from l(x) scored per proposal (Optuna: n_ei_candidates)
constexpr double kGamma = 0.15;          // the good share of the observations...
constexpr size_t kMaxGood = 25;          // ... at most this many (Optuna's default gamma caps at 25)
constexpr double kBandwidth = 0.6;       // the kernel's width, in places along a tunable's list
constexpr double kPriorWeight = 1.0;     // the flat prior counts as this many observations
constexpr int kDrawAttempts = 8;         // draws per candidate until one is feasible and new

// One tunable's Parzen estimator over its value positions.
std::vector<double> parzen(const std::vector<size_t>& positions, size_t n) {
  std::vector<double> p(n, kPriorWeight / static_cast<double>(n));
  for (size_t at : positions) {
    std::vector<double> k(n);
    double sum = 0;
    for (size_t i = 0; i < n; ++i) {
      double d = (static_cast<double>(i) - static_cast<double>(at)) / kBandwidth;
      sum += k[i] = std::exp(-0.5 * d * d);
    }
    for (size_t i = 0; i < n; ++i) p[i] += k[i] / sum;
  }
  double total = kPriorWeight + static_cast<double>(positions.size());
  for (double& v : p) v /= total;
  return p;
}

size_t draw(std::mt19937_64& rng, const std::vector<double>& p) {
  double u = detail::uniform_unit(rng), acc = 0;
  for (size_t i = 0; i < p.size(); ++i)
    if (u < (acc += p[i])) return i;
  return p.size() - 1;
}
}  // namespace

std::optional<Tunables> Tuner::next_tpe() {
  const int warmup = 2 + static_cast<int>(m_.tunables.size());
  if (explored_ < warmup || scored_.empty()) return next_random();

  std::vector<size_t> order(scored_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return scored_[a].second < scored_[b].second; });
  size_t n_good = std::clamp<size_t>(static_cast<size_t>(std::ceil(kGamma * static_cast<double>(order.size()))), 1,
                                     kMaxGood);
  const size_t dims = m_.tunables.size();
  std::vector<std::vector<size_t>> good(dims), bad(dims);
  for (size_t r = 0; r < order.size(); ++r) {
    std::vector<size_t> idx = space_.indices(scored_[order[r]].first);
    for (size_t d = 0; d < dims; ++d) (r < n_good ? good : bad)[d].push_back(idx[d]);
  }
  for (const Tunables& t : failed_) {
    std::vector<size_t> idx = space_.indices(t);
    for (size_t d = 0; d < dims; ++d) bad[d].push_back(idx[d]);
  }
  std::vector<std::vector<double>> l(dims), g(dims);
  for (size_t d = 0; d < dims; ++d) {
    l[d] = parzen(good[d], m_.tunables[d].values.size());
    g[d] = parzen(bad[d], m_.tunables[d].values.size());
  }

  std::optional<Tunables> best;
  double best_score = -1e300;
  for (int c = 0; c < kCandidates; ++c) {
    for (int attempt = 0; attempt < kDrawAttempts; ++attempt) {
      std::vector<size_t> idx(dims);
      double score = 0;
      for (size_t d = 0; d < dims; ++d) {
        idx[d] = draw(rng_, l[d]);
        score += std::log(l[d][idx[d]]) - std::log(g[d][idx[d]]);
      }
      Tunables t = space_.at(idx);
      if (!usable(t)) continue;
      if (score > best_score) {
        best_score = score;
        best = std::move(t);
      }
      break;
    }
  }
  if (best) return best;
  // l(x) is concentrated on points already tried: finish the best
  // neighbourhoods, then the rest at random (exact exhaustion on small spaces).
  if (auto t = sweep_best_neighbourhoods()) return t;
  return next_random();
}

}  // namespace ar
