// `autoresearch simulate`: replays a measured space (docs/spaces.md) with the
// real tuner as if it were a run, for each strategy asked for and many seeds,
// and reports how many evaluations each needed to come within --target of the
// space's best, against random search. No GPU, no package, no build.
#include <iostream>

#include <fmt/format.h>

#include "autoresearch/agents/simulation.h"
#include "autoresearch/util/errors.h"
#include "commands.h"

namespace ar {

namespace {

struct SimulateArgs {
  std::string space;
  std::vector<std::string> strategies;
  SimulationOptions o;
  bool json = false;
};

nlohmann::json stats_json(const StrategyStats& s) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : s.runs)
    runs.push_back({{"seed", r.seed}, {"evaluations", r.evaluations}, {"reached", r.reached},
                    {"best_time_us", r.best_time_us}, {"keeps", r.keeps}});
  return {{"strategy", strategy_name(s.strategy)}, {"reached", s.reached}, {"q1", s.q1}, {"median", s.median},
          {"q3", s.q3}, {"mean", s.mean}, {"runs", runs}};
}

}  // namespace

CommandAction add_simulate_command(CLI::App& sub) {
  auto a = std::make_shared<SimulateArgs>();
  sub.add_option("--space", a->space, "the measured space: JSON lines or JSON (docs/spaces.md)")->required();
  sub.add_option("--strategy", a->strategies,
                 "strategies to replay (repeatable, or comma-separated): random, evolution, tpe, bayes, all; random is "
                 "always replayed too, as the yardstick")
      ->delimiter(',')
      ->required();
  sub.add_option("--seeds", a->o.seeds, "simulated runs per strategy (seeds 1..N)")->capture_default_str();
  sub.add_option("--first-seed", a->o.first_seed, "the first seed")->capture_default_str();
  sub.add_option("--budget", a->o.budget,
                 "evaluations per run before giving up (0: as many as the space has configurations)")
      ->capture_default_str();
  sub.add_option("--target", a->o.target, "reached: within this fraction of the space's best (0.05 = 5%)")
      ->capture_default_str();
  sub.add_option("--in-flight", a->o.in_flight,
                 "proposals made ahead of their judgement, as a run's build jobs (1 for a CPU package; a CUDA "
                 "run builds up to 8 ahead)")
      ->capture_default_str();
  sub.add_option("--min-gain", a->o.min_gain, "a configuration this much faster than the incumbent is kept")
      ->capture_default_str();
  sub.add_option("--noise", a->o.noise,
                 "the tuner sees each time with this many times its measured spread as noise (0: the medians)")
      ->capture_default_str();
  sub.add_flag("--json", a->json, "print the summary and every run as JSON on stdout");
  sub.footer(
      "Each simulated run starts at the space's defaults, asks the tuner for proposals, answers each with the "
      "measured time (or failure), keeps what is faster, and counts evaluations until one is within --target "
      "of the best. Exit codes: 0 it ran; 2 bad usage or a bad space file.");
  return [a] {
    if (a->o.seeds < 1) throw usage_error("--seeds: at least 1");
    if (a->o.budget < 0) throw usage_error("--budget: 0 (the whole space) or more");
    if (!(a->o.target >= 0 && a->o.target < 10)) throw usage_error("--target: a fraction such as 0.05");
    if (a->o.in_flight < 1 || a->o.in_flight > 64) throw usage_error("--in-flight: 1 to 64");
    if (!(a->o.min_gain >= 0 && a->o.min_gain < 1)) throw usage_error("--min-gain: a fraction such as 0.01");
    if (!(a->o.noise >= 0 && a->o.noise <= 10)) throw usage_error("--noise: 0 (none) to 10 times the measured spread");
    std::vector<std::string> names = {"random"};
    names.insert(names.end(), a->strategies.begin(), a->strategies.end());
    std::vector<Strategy> strategies = parse_strategies(names);
    MeasuredSpace space = load_measured_space(a->space);
    const double best = space.best_time_us();
    const double start = *space.find(space.start())->time_us;
    std::vector<StrategyStats> all;
    for (Strategy s : strategies) all.push_back(simulate_strategy(space, s, a->o));
    const StrategyStats& random = all.front();

    if (a->json) {
      nlohmann::json out = {{"space", a->space}, {"kernel", space.manifest.name},
                            {"configurations", space.points.size()}, {"failures", space.failures()},
                            {"best_time_us", best}, {"start_time_us", start}, {"target", a->o.target},
                            {"within_target", space.within(a->o.target)}, {"seeds", a->o.seeds},
                            {"in_flight", a->o.in_flight}, {"noise", a->o.noise}, {"strategies", nlohmann::json::array()}};
      for (const auto& s : all) {
        nlohmann::json j = stats_json(s);
        j["ratio_vs_random"] = random.median / std::max(1e-9, s.median);
        out["strategies"].push_back(j);
      }
      std::cout << out.dump(2) << "\n";
      return kExitOk;
    }
    std::cout << fmt::format(
        "{}: {} configurations ({} failed); best {:.2f} µs, the start {:.2f} µs ({:.2f}x); {} within {:.0f}% "
        "of the best\n",
        space.manifest.name, space.points.size(), space.failures(), best, start, start / best,
        space.within(a->o.target), a->o.target * 100);
    std::cout << fmt::format("evaluations to come within {:.0f}% of the best, over {} seeds ({} in flight{}):\n",
                             a->o.target * 100, a->o.seeds, a->o.in_flight,
                             a->o.noise > 0 ? fmt::format(", noise {}x the measured spread", a->o.noise) : "");
    std::cout << fmt::format("  {:<10} {:>8} {:>8} {:>8} {:>8} {:>9} {:>12}\n", "strategy", "median", "q1", "q3",
                             "mean", "reached", "random/it");
    for (const auto& s : all)
      std::cout << fmt::format("  {:<10} {:>8.1f} {:>8.1f} {:>8.1f} {:>8.1f} {:>5}/{:<3} {:>11.2f}x\n",
                               strategy_name(s.strategy), s.median, s.q1, s.q3, s.mean, s.reached, a->o.seeds,
                               random.median / std::max(1e-9, s.median));
    return kExitOk;
  };
}

}  // namespace ar
