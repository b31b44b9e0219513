#pragma once
// Replays a measured space (measured_space.h) as the oracle for the real Tuner,
// so strategies are compared without a GPU: the same propose / observe /
// rebase exchange the loop has with the tuner, the same queue of proposals
// built ahead, the same result cache, and a keep whenever a configuration is
// faster than the incumbent by the keep rule's minimum gain. A configuration
// judged twice is a bug (the tuner and its cache exist to prevent it): the
// replay throws std::logic_error.
#include <string>
#include <vector>

#include "autoresearch/agents/measured_space.h"
#include "autoresearch/agents/tuner.h"

namespace ar {

struct SimulationOptions {
  double target = 0.05;         // "reached": a configuration within this fraction of the space's best
  int budget = 0;               // evaluations per seed before giving up (0: the number of configurations)
  int in_flight = 1;            // proposals queued ahead, as the loop's build jobs (1: a CPU package)
  double min_gain = 0.01;       // a keep is this much faster than the incumbent (the keep rule's min-gain)
  int seeds = 100;
  // The tuner sees each time times exp(noise * sigma * N(0, 1)), sigma being the
  // point's own measured spread (its per-workload ratio CIs); 0: the medians as
  // measured. "Reached" is always judged on the measured medians.
  double noise = 0;
  unsigned long long first_seed = 1;
};

struct SeedRun {
  unsigned long long seed = 0;
  int evaluations = 0;          // configurations judged until the target was met (0: the start already is)
  bool reached = false;         // false: the budget ran out (or the tuner had nothing left) first
  double best_time_us = 0;      // the fastest configuration found
  int keeps = 0;
};

struct StrategyStats {
  Strategy strategy = Strategy::Random;
  std::vector<SeedRun> runs;
  int reached = 0;
  // Quartiles of the evaluations over the seeds; a seed that did not reach the
  // target counts as budget + 1 (so a median above the budget says "not reached").
  double q1 = 0, median = 0, q3 = 0;
  double mean = 0;
};

// One simulated run of the tuner on the space. Throws a usage error when the
// tuner proposes a configuration the space does not hold (which would mean the
// space and the tuner disagree about what is feasible).
SeedRun simulate_run(const MeasuredSpace& space, Strategy s, unsigned long long seed, const SimulationOptions& o);
// simulate_run over o.seeds seeds (first_seed, first_seed + 1, ...).
StrategyStats simulate_strategy(const MeasuredSpace& space, Strategy s, const SimulationOptions& o);

// Parses "random", "evolution", "tpe", "bayes", "all" (every strategy), comma lists of them.
std::vector<Strategy> parse_strategies(const std::vector<std::string>& names);
// The geomean time's relative spread (one sigma, log scale) of a measured point.
double point_sigma(const SpacePoint& p);

// Linear-interpolation quantile (R's type 7) of unsorted values; q in [0, 1].
double quantile(std::vector<double> values, double q);

}  // namespace ar
