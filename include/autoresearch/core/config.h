#pragma once
// The options of a run, each declared once (name, default, help) in visit().
// That one list drives the config file (configs/*.json), the environment
// (AUTORESEARCH_<NAME>), the command-line flags (--name-with-dashes), --help, and
// the dump of the effective configuration into the log header.
// Precedence: defaults < config file < environment < flags.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace ar {

struct RunConfig {
  // what to tune and for how long
  std::string kernel;
  std::string goal = "2x";
  std::string agent = "tune";
  std::string strategy = "evolution";
  int max_iters = 0;                  // 0: no limit
  double max_hours = 0;               // 0: no limit
  int plateau = 60;                   // stop after this many candidates without a keep (0: never)
  long long seed = 0;                 // 0: from the clock (recorded in the log)
  int gpu = 0;
  std::string tag;                    // run id suffix; default: the start time
  // measurement (SPEC §6)
  int min_samples = 10;
  double min_seconds = 0.5;
  double max_seconds = 15;
  double target_rel_ci = 0.005;
  int screen_min_samples = 10;
  double screen_min_seconds = 0.1;
  double screen_max_seconds = 2;
  bool cold = true;
  // the keep rule
  double min_gain = 0.01;
  double alpha = 0.01;
  double regression_margin = 0.02;
  double aa_factor = 2.0;
  int aa_refresh = 25;                // re-measure the A/A spread every N candidates
  // robustness and throughput
  int build_jobs = 0;                 // 0: automatic (cores - 1 for CUDA, 1 for CPU packages)
  double verify_timeout_s = 120;      // per workload
  double bench_timeout_s = 60;        // per workload, on top of max_seconds
  int infra_failures = 3;             // consecutive infrastructure failures before exit 4
  int hidden = -1;                    // hidden workloads per full verification (-1: the manifest's)
  int keep_failed_builds = 5;         // build folders kept for the last N failures
  bool cache = true;                  // skip configurations measured before

  template <class V>
  void visit(V&& v) {
    v("kernel", kernel, "kernel package: a name under kernels/ or a folder with manifest.json");
    v("goal", goal, "target speedup over the starting source (geomean over timed workloads), e.g. 2x");
    v("agent", agent, "who proposes changes: tune (the built-in search over the declared tunables)");
    v("strategy", strategy, "tune agent's search: evolution (model-guided) or random");
    v("max_iters", max_iters, "stop after this many candidates (0: no limit)");
    v("max_hours", max_hours, "stop after this many hours of wall time (0: no limit)");
    v("plateau", plateau, "stop after this many candidates in a row without a keep (0: never)");
    v("seed", seed, "random seed for the agent and the inputs (0: from the clock)");
    v("gpu", gpu, "GPU index to run on");
    v("tag", tag, "run tag: the run is <kernel>-<tag> on branch autoresearch/<kernel>-<tag>");
    v("min_samples", min_samples, "fewest interleaved rounds per workload in a full measurement");
    v("min_seconds", min_seconds, "least time spent sampling each workload in a full measurement");
    v("max_seconds", max_seconds, "most time spent sampling each workload");
    v("target_rel_ci", target_rel_ci, "sample until each median's 95% CI is within this fraction");
    v("screen_min_samples", screen_min_samples, "rounds per workload in the quick screen");
    v("screen_min_seconds", screen_min_seconds, "least sampling time per workload in the quick screen");
    v("screen_max_seconds", screen_max_seconds, "most sampling time per workload in the quick screen");
    v("cold", cold, "flush the caches before every timed sample");
    v("min_gain", min_gain, "smallest speedup worth keeping (0.01 = 1%)");
    v("alpha", alpha, "significance level of the keep rule (one-sided)");
    v("regression_margin", regression_margin, "no workload may get slower than this fraction");
    v("aa_factor", aa_factor, "a keep must beat this many times the A/A noise half-width");
    v("aa_refresh", aa_refresh, "re-measure the A/A noise every N candidates");
    v("build_jobs", build_jobs, "candidates compiled in parallel (0: automatic)");
    v("verify_timeout_s", verify_timeout_s, "seconds a verification of one workload may take");
    v("bench_timeout_s", bench_timeout_s, "seconds a measurement may take beyond max_seconds");
    v("infra_failures", infra_failures, "consecutive infrastructure failures before giving up (exit 4)");
    v("hidden", hidden, "hidden workloads per full verification (-1: the manifest's count)");
    v("keep_failed_builds", keep_failed_builds, "build folders kept for the last N failed candidates");
    v("cache", cache, "never re-measure a configuration found in the result cache");
  }
};

// Applies a JSON object's keys onto the config; unknown keys and wrong types are
// usage errors naming `origin` (a file path, or "environment").
void apply_json(RunConfig& c, const nlohmann::json& j, const std::string& origin);
// Applies AUTORESEARCH_<NAME> variables that are set.
void apply_environment(RunConfig& c);
nlohmann::json to_json(RunConfig& c);

// "2x", "2", "1.5X" -> 2.0, 1.5; throws a usage error otherwise (must be > 1... or >= 1).
double parse_goal(const std::string& text);

}  // namespace ar
