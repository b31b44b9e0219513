// A run of the loop with the measured space as the oracle. The driver's side is
// reduced to what the tuner can see, in the loop's order (src/loop/run_loop.cpp):
// a queue of proposals made ahead (refilled to `in_flight` after each judged
// candidate), a stale proposal rebased onto the current incumbent or dropped,
// each judged configuration observed and cached, the incumbent moved by a keep.
#include "autoresearch/agents/simulation.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "autoresearch/util/errors.h"
#include "random_draw.h"

namespace ar {

namespace {

constexpr const char* kContextKey = "simulated";

class SimulatedRun {
 public:
  SimulatedRun(const MeasuredSpace& space, Strategy s, unsigned long long seed, const SimulationOptions& o)
      : space_(space), o_(o), tuner_(space.manifest, s, seed, &cache_), noise_rng_(seed ^ 0x9e3779b97f4a7c15ull) {
    tuner_.set_context_key(kContextKey);
    incumbent_ = space.start();
    incumbent_us_ = observed(*space.find(incumbent_));
    judged_.insert(canonical(incumbent_));   // the baseline measured it
    limit_us_ = space.best_time_us() * (1 + o.target);
    budget_ = o.budget > 0 ? o.budget : static_cast<int>(space.points.size());
    result_.seed = seed;
    result_.best_time_us = incumbent_us_;
  }

  SeedRun run() {
    if (incumbent_us_ <= limit_us_) {
      result_.reached = true;
      return result_;
    }
    const int batch = std::max(1, o_.in_flight);
    while (result_.evaluations < budget_) {
      if (queue_.empty()) {
        for (auto& p : tuner_.propose(context(), batch)) queue_.push_back(std::move(p));
        if (queue_.empty()) break;   // the space is used up
      }
      Proposal p = std::move(queue_.front());
      queue_.pop_front();
      if (p.base_id != incumbent_id_) {
        auto moved = tuner_.rebase(p, context());
        if (!moved) continue;
        p = std::move(*moved);
      }
      if (judge(p)) {
        result_.reached = true;
        break;
      }
      if (batch > 1 && static_cast<int>(queue_.size()) < batch)
        for (auto& q : tuner_.propose(context(), batch - static_cast<int>(queue_.size()))) queue_.push_back(std::move(q));
    }
    return result_;
  }

 private:
  AgentContext context() const {
    AgentContext a;
    a.manifest = &space_.manifest;
    a.incumbent_tunables = incumbent_;
    a.incumbent_id = incumbent_id_;
    // The loop learns the incumbent's fitness from its side of the first screen.
    if (screened_) a.incumbent_quick_geomean_us = incumbent_us_;
    a.iteration = next_id_;
    return a;
  }

  // True when the configuration meets the target.
  bool judge(const Proposal& p) {
    const SpacePoint* point = space_.find(p.tunables);
    if (!point)
      throw usage_error(fmt::format("the tuner proposed {}, which the space does not hold", canonical(p.tunables)));
    if (!judged_.insert(canonical(p.tunables)).second)
      throw std::logic_error(fmt::format("{} was measured twice (evaluation {})", canonical(p.tunables),
                                         result_.evaluations + 1));
    int id = next_id_++;
    ++result_.evaluations;
    Outcome o;
    if (!point->time_us) {
      o.decision = point->decision;
      o.reason = point->reason;
    } else {
      double t = observed(*point);
      o.quick_geomean_us = t;
      o.speedup = incumbent_us_ / t;
      screened_ = true;
      o.decision = *o.speedup >= 1 + o_.min_gain ? Decision::Keep : Decision::Discard;
      result_.best_time_us = std::min(result_.best_time_us, *point->time_us);
    }
    tuner_.observe(p, o);
    cache_.add({kContextKey, p.tunables, o, {}, "simulation", id});
    if (o.decision == Decision::Keep) {
      incumbent_ = p.tunables;
      incumbent_us_ = *o.quick_geomean_us;
      incumbent_id_ = id;
      ++result_.keeps;
    }
    return point->time_us && *point->time_us <= limit_us_;
  }

  // What the tuner is told: the measured median, with noise when asked for.
  double observed(const SpacePoint& p) {
    double t = *p.time_us;
    if (o_.noise <= 0) return t;
    // Box-Muller from the tuner's portable draws, so a seed replays alike everywhere.
    double u1 = 1 - detail::uniform_unit(noise_rng_), u2 = detail::uniform_unit(noise_rng_);
    double z = std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    return t * std::exp(o_.noise * point_sigma(p) * z);
  }

  const MeasuredSpace& space_;
  SimulationOptions o_;
  ResultCache cache_;
  Tuner tuner_;
  std::mt19937_64 noise_rng_;
  std::set<std::string> judged_;
  std::deque<Proposal> queue_;
  Tunables incumbent_;
  double incumbent_us_ = 0;
  int incumbent_id_ = 0;
  int next_id_ = 1;
  bool screened_ = false;
  double limit_us_ = 0;
  int budget_ = 0;
  SeedRun result_;
};

}  // namespace

std::vector<Strategy> parse_strategies(const std::vector<std::string>& names) {
  std::vector<Strategy> out;
  auto add = [&](Strategy s) {
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  };
  for (const auto& n : names) {
    if (n == "all") {
      for (Strategy s : {Strategy::Random, Strategy::Evolution, Strategy::Tpe, Strategy::Bayes}) add(s);
    } else if (n == "random" || n == "evolution" || n == "tpe" || n == "bayes") {
      add(parse_strategy(n));
    } else {
      throw usage_error(
          fmt::format("--strategy: unknown strategy '{}' (expected random, evolution, tpe, bayes or all)", n));
    }
  }
  return out;
}

double point_sigma(const SpacePoint& p) {
  if (!p.detail.contains("workloads") || !p.detail["workloads"].is_object()) return 0;
  double sum = 0;
  size_t n = 0;
  for (const auto& [name, w] : p.detail["workloads"].items()) {
    ++n;
    if (!w.contains("ratio_ci") || !w["ratio_ci"].is_array() || w["ratio_ci"].size() != 2) continue;
    double lo = w["ratio_ci"][0].get<double>(), hi = w["ratio_ci"][1].get<double>();
    if (!(lo > 0 && hi >= lo)) continue;
    double sigma = std::log(hi / lo) / (2 * 1.96);
    sum += sigma * sigma;
  }
  return n ? std::sqrt(sum) / static_cast<double>(n) : 0;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  double h = (static_cast<double>(v.size()) - 1) * std::clamp(q, 0.0, 1.0);
  size_t lo = static_cast<size_t>(std::floor(h));
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

SeedRun simulate_run(const MeasuredSpace& space, Strategy s, unsigned long long seed, const SimulationOptions& o) {
  SimulatedRun run(space, s, seed, o);
  return run.run();
}

StrategyStats simulate_strategy(const MeasuredSpace& space, Strategy s, const SimulationOptions& o) {
  StrategyStats st;
  st.strategy = s;
  const int budget = o.budget > 0 ? o.budget : static_cast<int>(space.points.size());
  std::vector<double> evals;
  for (int i = 0; i < o.seeds; ++i) {
    SeedRun r = simulate_run(space, s, o.first_seed + static_cast<unsigned long long>(i), o);
    st.reached += r.reached;
    evals.push_back(r.reached ? r.evaluations : budget + 1);
    st.runs.push_back(r);
  }
  st.q1 = quantile(evals, 0.25);
  st.median = quantile(evals, 0.5);
  st.q3 = quantile(evals, 0.75);
  double sum = 0;
  for (double e : evals) sum += e;
  st.mean = evals.empty() ? 0 : sum / static_cast<double>(evals.size());
  return st;
}

}  // namespace ar
