#pragma once
// The built-in agent "tune": searches the declared tunables. Four strategies:
// random (uniform over the feasible space), evolution (a model-guided local
// search: mutate and recombine the fittest configurations seen, moving to
// neighbouring values), tpe (a tree-structured Parzen estimator over the
// discrete space, as Optuna's sampler) and bayes (Bayesian optimisation: a
// Gaussian process and expected improvement). All respect the constraints and
// never propose a configuration already in the result cache or already proposed.
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "autoresearch/agents/agent.h"
#include "autoresearch/agents/gaussian_process.h"
#include "autoresearch/agents/result_cache.h"

namespace ar {

struct Manifest;

class SearchSpace {
 public:
  explicit SearchSpace(const Manifest& m);
  bool feasible(const Tunables& t, std::string* why = nullptr) const;
  Tunables random_point(std::mt19937_64& rng) const;    // uniform per tunable; may be infeasible
  // Neighbours along one tunable (the next/previous allowed value).
  std::vector<Tunables> neighbours(const Tunables& t) const;
  // Product of the value counts (an upper bound on the feasible count).
  double size() const;
  const Manifest& manifest() const { return m_; }

  // Each tunable's position in its value list, in manifest order; a value not in
  // the list (or a missing name) maps to the nearest allowed value (or the default).
  std::vector<size_t> indices(const Tunables& t) const;
  Tunables at(const std::vector<size_t>& idx) const;
  // Every feasible point as a mixed-radix code (for spaces small enough to list).
  std::vector<uint64_t> feasible_codes() const;
  Tunables decode(uint64_t code) const;

 private:
  const Manifest& m_;
};

enum class Strategy { Random, Evolution, Tpe, Bayes };
Strategy parse_strategy(const std::string& name);   // throws usage error on unknown names
const char* strategy_name(Strategy s);

class Tuner : public Agent {
 public:
  // The cache and context key let the tuner skip known configurations; the
  // driver updates the key when the incumbent's source changes.
  Tuner(const Manifest& m, Strategy s, unsigned long long seed, ResultCache* cache);
  std::string name() const override { return "tune"; }
  std::vector<Proposal> propose(const AgentContext& ctx, int max_count) override;
  void observe(const Proposal& proposal, const Outcome& outcome) override;
  bool proposes_tunables_only() const override { return true; }
  // The proposal's change (the tunables it moved away from its base) applied to
  // the current incumbent; dropped when that is the incumbent itself, infeasible,
  // or a configuration already tried.
  std::optional<Proposal> rebase(const Proposal& stale, const AgentContext& now) override;
  void set_context_key(const std::string& key) { context_key_ = key; }
  // Feasible configurations neither judged nor proposed yet in this context
  // (nullopt: the space is too large to count).
  std::optional<long long> untried() override;

 private:
  std::optional<Tunables> next_random();
  std::optional<Tunables> next_evolution(const AgentContext& ctx);
  std::optional<Tunables> next_tpe();   // strategy_tpe.cpp
  std::optional<Tunables> next_bayes(const AgentContext& ctx);   // strategy_bayes.cpp
  std::vector<double> bayes_features(const Tunables& t) const;
  std::vector<Tunables> bayes_candidates();
  bool seen(const Tunables& t) const;
  void release(const Tunables& t);   // a proposal that was never measured is untried again
  bool usable(const Tunables& t) const { return space_.feasible(t) && !seen(t); }
  std::string describe_change(const Tunables& from, const Tunables& to) const;
  // Per-context state: a new key (new source, compiler, GPU...) starts a fresh
  // search seeded with that key's cached results.
  void enter_context();
  void remember(const Tunables& t, const Outcome& outcome);
  // Evolution's operators (strategy_evolution.cpp).
  std::optional<Tunables> explore_near(const Tunables& centre);
  std::optional<Tunables> breed();
  std::optional<Tunables> sweep_best_neighbourhoods();
  const Tunables& tournament();
  Tunables mutate(Tunables t);

  const Manifest& m_;
  SearchSpace space_;
  Strategy strategy_;
  std::mt19937_64 rng_;
  ResultCache* cache_;
  std::string context_key_;
  std::set<std::string> proposed_;                            // canonical tunables text
  std::set<std::string> judged_;                              // ... of those measured (or the incumbent)
  std::vector<std::pair<Tunables, double>> scored_;           // fitness (lower better)
  std::vector<Tunables> failed_;                              // judged without a time (build error, wrong...)

  std::optional<std::string> active_key_;   // the context the state below belongs to
  Tunables incumbent_;                      // from the latest propose() call
  int explored_ = 0;                        // proposals + cached results in this context
  long long proposals_ = 0;                 // evolution proposals made (every fourth is random)
  // Random strategy on a small space: the feasible points, drawn without replacement.
  std::vector<uint64_t> pool_;
  bool pool_ready_ = false;
  std::optional<long long> feasible_count_;   // listable spaces: every feasible point, counted once
  // Bayes: the feasible points of a listable space, and the model's hyperparameters.
  std::optional<Tunables> bayes_centre_;   // the configuration its initial design surrounds
  std::vector<uint64_t> bayes_codes_;
  bool bayes_codes_ready_ = false;
  std::optional<GpHyperparameters> bayes_hyper_;
  size_t bayes_refit_size_ = 0;              // observations when the hyperparameters were chosen
};

// Canonical text of a tunables assignment ("A=1,B=2"), the identity used everywhere.
std::string canonical(const Tunables& t);

}  // namespace ar
