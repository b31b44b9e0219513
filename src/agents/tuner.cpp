// The built-in agent "tune": turns the chosen strategy's points into proposals,
// and keeps what the driver reports back so no configuration is measured twice.
#include <cmath>

#include <fmt/format.h>

#include "autoresearch/agents/tuner.h"
#include "autoresearch/core/manifest.h"
#include "autoresearch/util/errors.h"

namespace ar {

Strategy parse_strategy(const std::string& name) {
  if (name == "random") return Strategy::Random;
  if (name == "evolution") return Strategy::Evolution;
  if (name == "tpe") return Strategy::Tpe;
  if (name == "bayes") return Strategy::Bayes;
  throw usage_error(fmt::format("unknown tune strategy '{}' (expected random, evolution, tpe or bayes)", name));
}

const char* strategy_name(Strategy s) {
  switch (s) {
    case Strategy::Random: return "random";
    case Strategy::Evolution: return "evolution";
    case Strategy::Tpe: return "tpe";
    case Strategy::Bayes: return "bayes";
  }
  return "?";
}

Tuner::Tuner(const Manifest& m, Strategy s, unsigned long long seed, ResultCache* cache)
    : m_(m), space_(m), strategy_(s), rng_(seed), cache_(cache) {}

std::vector<Proposal> Tuner::propose(const AgentContext& ctx, int max_count) {
  if (!active_key_ || *active_key_ != context_key_) enter_context();

  // Missing names take their defaults, so the incumbent is always a full point.
  incumbent_.clear();
  for (const Tunable& tunable : m_.tunables) {
    auto it = ctx.incumbent_tunables.find(tunable.name);
    incumbent_[tunable.name] = it != ctx.incumbent_tunables.end() ? it->second : tunable.default_value;
  }
  // The incumbent has been measured by the driver, cached or not.
  proposed_.insert(canonical(incumbent_));
  judged_.insert(canonical(incumbent_));

  std::vector<Proposal> out;
  for (int i = 0; i < max_count; ++i) {
    std::optional<Tunables> t = strategy_ == Strategy::Random      ? next_random()
                                : strategy_ == Strategy::Evolution ? next_evolution(ctx)
                                : strategy_ == Strategy::Tpe       ? next_tpe()
                                                                   : next_bayes(ctx);
    if (!t) break;  // the feasible space is used up
    proposed_.insert(canonical(*t));
    ++explored_;
    Proposal p;
    p.agent = name();
    p.model = strategy_name(strategy_);
    p.idea = describe_change(incumbent_, *t);
    p.tunables = std::move(*t);
    p.base_id = ctx.incumbent_id;
    p.base_tunables = incumbent_;
    out.push_back(std::move(p));
  }
  return out;
}

std::optional<Proposal> Tuner::rebase(const Proposal& stale, const AgentContext& now) {
  Tunables current;
  for (const Tunable& tunable : m_.tunables) {
    auto it = now.incumbent_tunables.find(tunable.name);
    current[tunable.name] = it != now.incumbent_tunables.end() ? it->second : tunable.default_value;
  }
  // Bayes chooses points, not changes: its model's pick stays what it was (and
  // its build made ahead stays usable); the others move their change along.
  Tunables moved = current;
  if (strategy_ == Strategy::Bayes) {
    moved = stale.tunables;
  } else {
    for (const auto& [name, value] : stale.tunables) {
      auto base = stale.base_tunables.find(name);
      if (base == stale.base_tunables.end() || base->second != value) moved[name] = value;
    }
  }
  // The stale point itself is not measured when it is moved or dropped: it
  // goes back to the untried, or it would never be tried (and a space would
  // be "used up" with points never measured).
  if (moved != stale.tunables && !judged_.count(canonical(stale.tunables)) &&
      !(cache_ && cache_->find(context_key_, stale.tunables)))
    release(stale.tunables);
  if (moved == current || !space_.feasible(moved)) return std::nullopt;
  if (moved != stale.tunables && seen(moved)) return std::nullopt;
  proposed_.insert(canonical(moved));
  Proposal p = stale;
  p.idea = describe_change(current, moved);
  p.tunables = std::move(moved);
  p.base_id = now.incumbent_id;
  p.base_tunables = current;
  return p;
}

void Tuner::observe(const Proposal& proposal, const Outcome& outcome) {
  remember(proposal.tunables, outcome);
}

// Every configuration judged is never proposed again; only the ones that built,
// verified and got a time join the population evolution breeds from, so a
// failure (build, verify, guard, crash) is a dead end, not a parent.
void Tuner::remember(const Tunables& t, const Outcome& outcome) {
  proposed_.insert(canonical(t));
  judged_.insert(canonical(t));
  if (!is_candidate_failure(outcome.decision) && outcome.quick_geomean_us &&
      std::isfinite(*outcome.quick_geomean_us)) {
    scored_.emplace_back(t, *outcome.quick_geomean_us);
  } else if (outcome.decision != Decision::Error && outcome.decision != Decision::Interrupted) {
    failed_.push_back(t);
  }
}

void Tuner::release(const Tunables& t) {
  if (!proposed_.erase(canonical(t)) || !pool_ready_) return;
  // Random draws from the pool without replacement: the point goes back in.
  std::vector<size_t> idx = space_.indices(t);
  uint64_t code = 0;
  for (size_t d = m_.tunables.size(); d-- > 0;)
    code = code * std::max<uint64_t>(1, m_.tunables[d].values.size()) + idx[d];
  pool_.push_back(code);
}

std::optional<long long> Tuner::untried() {
  if (!active_key_ || *active_key_ != context_key_) enter_context();
  if (space_.size() > (1 << 20)) return std::nullopt;
  if (!feasible_count_) feasible_count_ = static_cast<long long>(space_.feasible_codes().size());
  // proposed_ holds only feasible points: the tuner's own proposals, the
  // incumbents it started from and this context's cached results (its own).
  return std::max(0LL, *feasible_count_ - static_cast<long long>(proposed_.size()));
}

// Results under another key were measured against other sources, compiler or GPU:
// neither their times nor "already tried" carry over.
void Tuner::enter_context() {
  active_key_ = context_key_;
  proposed_.clear();
  judged_.clear();
  scored_.clear();
  failed_.clear();
  pool_.clear();
  pool_ready_ = false;
  explored_ = 0;
  bayes_centre_.reset();
  bayes_hyper_.reset();
  bayes_refit_size_ = 0;
  if (!cache_) return;
  for (const CachedResult* r : cache_->all_for(context_key_)) {
    remember(r->tunables, r->outcome);
    ++explored_;
  }
}

bool Tuner::seen(const Tunables& t) const {
  return proposed_.count(canonical(t)) > 0 || (cache_ && cache_->find(context_key_, t));
}

std::string Tuner::describe_change(const Tunables& from, const Tunables& to) const {
  std::string out;
  for (const Tunable& tunable : m_.tunables) {
    auto a = from.find(tunable.name);
    auto b = to.find(tunable.name);
    if (b == to.end() || (a != from.end() && a->second == b->second)) continue;
    if (!out.empty()) out += ", ";
    out += a == from.end() ? fmt::format("{} {}", tunable.name, b->second)
                           : fmt::format("{} {}→{}", tunable.name, a->second, b->second);
  }
  return out.empty() ? "the incumbent's tunables" : out;
}

}  // namespace ar
