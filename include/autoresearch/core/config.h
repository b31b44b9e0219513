#pragma once
// The options of a run, each declared once (name, default, help) in visit().
// That one list drives the config file (configs/*.json), the environment
// (AUTORESEARCH_<NAME>), the command-line flags (--name-with-dashes), --help, and
// the dump of the effective configuration into the log header.
// Precedence: defaults < config file < environment < flags.
#include <filesystem>
#include <string>
#include <vector>

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
  std::vector<std::string> focus;     // timed workloads (names or globs) the gain is judged on; empty: all
  // robustness and throughput
  int build_jobs = 0;                 // 0: automatic (cores - 1 for CUDA, 1 for CPU packages)
  double verify_timeout_s = 120;      // per workload
  double bench_timeout_s = 60;        // per workload, on top of max_seconds
  int infra_failures = 3;             // consecutive infrastructure failures before exit 4
  int hidden = -1;                    // hidden workloads per full verification (-1: the manifest's)
  int keep_failed_builds = 5;         // build folders kept for the last N failures
  bool cache = true;                  // skip configurations measured before
  bool screen_first = true;           // tunables-only candidates: screened before they are verified
  // text agents (SPEC §5): what they are told, and how they are reached
  std::vector<std::string> idea;      // the human's ideas, one sentence each (--idea, repeatable)
  std::string ideas;                  // a file of ideas (one per paragraph): --ideas FILE
  int history = 12;                   // past experiments in the context pack
  int tune_each = 0;                  // hybrid: tuner settings tried per text candidate before judging
  bool profile = true;                // an ncu profile of the incumbent in the context pack, where ncu works
  std::string agent_cmd;              // --agent command: the program, run with /bin/sh -c in the worktree
  double agent_timeout_s = 1800;      // the command's time per proposal (its process group is killed)
  bool agent_sandbox = false;         // run the command under bubblewrap
  std::vector<std::string> agent_sandbox_writable;   // more paths the sandboxed command may write
  std::string llm_provider = "openai";
  std::string llm_base_url;           // empty: the provider's public endpoint
  std::string llm_model;
  double llm_temperature = -1;        // < 0: not sent (reasoning models reject it)
  int llm_max_output_tokens = 16384;
  std::string llm_max_tokens_field = "auto";
  std::string llm_paid = "auto";      // does the endpoint bill: auto (by its host), true (a proxy to a paid API), false
  bool llm_stream = true;
  double llm_connect_timeout_s = 10;
  double llm_timeout_s = 600;         // per attempt; a streamed answer may take long
  int llm_attempts = 6;               // per call, retries with backoff included
  int llm_edit_retries = 2;           // times a failing edit is sent back to the model
  long long llm_max_answer_bytes = 400000;
  long long max_tokens_total = 0;     // token budget over the run (0: none)
  double max_cost = -1;               // USD budget over the run (-1: 10 for a paid endpoint, none for a local one)
  // where the harness runs (docs/slurm.md): here, or one SLURM job per measurement step
  std::string executor = "local";
  std::string slurm_partition;
  std::string slurm_account;
  std::string slurm_time;             // SLURM's time format; empty: the partition's limit
  std::string slurm_job_name = "autoresearch";
  std::string slurm_gres = "gpu:1";   // CUDA packages only
  std::vector<std::string> slurm_option;   // more srun options (repeatable)
  int slurm_requeues = 2;             // re-queues per measurement step
  double slurm_start_timeout_s = 900; // queue wait + start of one job

  template <class V>
  void visit(V&& v) {
    v("kernel", kernel, "kernel package: a name under kernels/ or a folder with manifest.json");
    v("goal", goal, "target speedup over the starting source (geomean over timed workloads, or the --focus ones), e.g. 2x");
    v("agent", agent,
      "who proposes changes: tune (the built-in search over the declared tunables), llm (a model over "
      "HTTP edits the source), command (any program edits the source)");
    v("strategy", strategy, "tune agent's search: evolution (model-guided local search, the default), bayes (a Gaussian process), tpe (Parzen estimator) or random");
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
    v("min_gain", min_gain, "a keep's 95% CI must reach this gain; a gain clearly below it is refused (0.01 = 1%)");
    v("alpha", alpha, "significance level of the keep rule (one-sided)");
    v("regression_margin", regression_margin, "no workload may get slower than this fraction");
    v("aa_factor", aa_factor, "a keep must beat this many times the A/A noise half-width");
    v("aa_refresh", aa_refresh, "re-measure the A/A noise every N candidates");
    v("focus", focus,
      "aim the run at these timed workloads (a name or a glob such as 'fp8_*'; repeatable): the gain, the noise "
      "bar and the goal are judged on their geomean; every timed workload is still measured, and none may get "
      "slower than --regression-margin");
    v("build_jobs", build_jobs, "candidates compiled in parallel (0: automatic)");
    v("verify_timeout_s", verify_timeout_s, "seconds a verification of one workload may take");
    v("bench_timeout_s", bench_timeout_s, "seconds a measurement may take beyond max_seconds");
    v("infra_failures", infra_failures, "consecutive infrastructure failures before giving up (exit 4)");
    v("hidden", hidden, "hidden workloads per full verification (-1: the manifest's count)");
    v("keep_failed_builds", keep_failed_builds, "build folders kept for the last N failed candidates");
    v("cache", cache, "never re-measure a configuration found in the result cache");
    v("screen_first", screen_first, "screen a tunables-only candidate before verifying it (false: verify first)");
    v("idea", idea, "an idea for the text agents, one sentence (repeatable)");
    v("ideas", ideas, "a file of ideas for the text agents (paragraphs)");
    v("history", history, "past experiments shown to text agents");
    v("tune_each", tune_each, "hybrid: tuner settings tried on each text candidate before it is judged (0: none)");
    v("profile", profile, "give text agents an ncu profile of the best kernel, where ncu works");
    v("agent_cmd", agent_cmd, "--agent command: the program to run ({context} is the context folder)");
    v("agent_timeout_s", agent_timeout_s, "seconds the agent command may take per proposal");
    v("agent_sandbox", agent_sandbox, "run the agent command under bubblewrap (writes only the worktree and its tmp)");
    v("agent_sandbox_writable", agent_sandbox_writable, "more paths the sandboxed agent command may write");
    v("llm_provider", llm_provider, "--agent llm: openai (any /chat/completions server) or anthropic");
    v("llm_base_url", llm_base_url, "the endpoint (empty: the provider's public API), e.g. http://localhost:8000/v1");
    v("llm_model", llm_model, "the model name the endpoint knows");
    v("llm_temperature", llm_temperature, "sampling temperature (negative: not sent)");
    v("llm_max_output_tokens", llm_max_output_tokens, "most tokens per answer");
    v("llm_max_tokens_field", llm_max_tokens_field, "auto, max_tokens or max_completion_tokens");
    v("llm_paid", llm_paid, "does the endpoint bill (auto: by its host; true: a proxy to a paid API; false)");
    v("llm_stream", llm_stream, "stream answers (SSE), so long answers do not hit the timeout");
    v("llm_connect_timeout_s", llm_connect_timeout_s, "seconds to connect to the endpoint");
    v("llm_timeout_s", llm_timeout_s, "seconds one request may take");
    v("llm_attempts", llm_attempts, "attempts per request (retries on 408/409/429/5xx with backoff)");
    v("llm_edit_retries", llm_edit_retries, "times an edit that does not apply is sent back to the model");
    v("llm_max_answer_bytes", llm_max_answer_bytes, "answers longer than this are refused");
    v("max_tokens_total", max_tokens_total, "stop after this many LLM tokens, in and out (0: no limit)");
    v("max_cost", max_cost, "stop after this many US dollars of LLM calls (-1: 10 on a paid endpoint)");
    v("executor", executor, "where measurements run: local (a child process here) or slurm (one job per step)");
    v("slurm_partition", slurm_partition, "--executor slurm: the partition (empty: the cluster's default)");
    v("slurm_account", slurm_account, "--executor slurm: the account to charge (empty: yours by default)");
    v("slurm_time", slurm_time, "--executor slurm: a job's time limit, e.g. 30 or 1:00:00 (empty: the partition's)");
    v("slurm_job_name", slurm_job_name, "--executor slurm: the jobs' name");
    v("slurm_gres", slurm_gres, "--executor slurm: the generic resources a CUDA package's job asks for");
    v("slurm_option", slurm_option, "--executor slurm: one more srun option, e.g. --constraint=h200 (repeatable)");
    v("slurm_requeues", slurm_requeues, "--executor slurm: new jobs per step after failed, cancelled or timed-out ones");
    v("slurm_start_timeout_s", slurm_start_timeout_s, "--executor slurm: seconds a job may wait in the queue and start");
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
