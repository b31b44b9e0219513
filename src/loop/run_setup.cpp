// Preflight and setup of a new run or a resumed one: everything before the
// first proposal. Order matters: nothing in git changes until the starting
// kernel has been built and verified, so bad input leaves the repo untouched.
#include <future>

#include <fmt/format.h>

#include "autoresearch/agents/command_agent.h"
#include "autoresearch/agents/context_assembly.h"
#include "autoresearch/agents/tuner.h"
#include "autoresearch/decide/focus.h"
#include "autoresearch/loop/resume_check.h"
#include "autoresearch/loop/source_check.h"
#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"
#include "steps.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

void validate_config(const RunConfig& c) {
  auto bad = [](const std::string& what) { throw usage_error(what); };
  if (c.agent != "tune" && c.agent != "command" && c.agent != "llm")
    bad(fmt::format("--agent: '{}' is not an agent (available: tune, llm, command)", c.agent));
  if (c.agent == "command" && c.agent_cmd.empty())
    bad("--agent command needs --agent-cmd \"PROGRAM ARGS\" (run with /bin/sh -c in the run's worktree)");
  if (c.agent_sandbox && c.agent != "command") bad("--agent-sandbox applies to --agent command only");
  if (c.agent == "llm" && c.llm_model.empty()) bad("--agent llm needs --llm-model (the model name the endpoint knows)");
  if (c.agent == "llm" && c.llm_provider != "openai" && c.llm_provider != "anthropic")
    bad(fmt::format("--llm-provider: '{}' (expected openai or anthropic)", c.llm_provider));
  if (c.agent_timeout_s <= 0) bad("--agent-timeout-s must be > 0");
  if (c.tune_each < 0) bad("--tune-each must be >= 0");
  if (c.history < 0) bad("--history must be >= 0");
  if (c.seed < 0) bad("--seed must be between 0 (from the clock) and 9223372036854775807");
  if (c.max_tokens_total < 0) bad("--max-tokens-total must be >= 0 (0: no limit)");
  if (c.llm_max_output_tokens < 1 || c.llm_attempts < 1 || c.llm_edit_retries < 0 || c.llm_max_answer_bytes < 1000)
    bad("--llm-max-output-tokens and --llm-attempts must be >= 1, --llm-edit-retries >= 0, "
        "--llm-max-answer-bytes >= 1000");
  if (c.llm_connect_timeout_s <= 0 || c.llm_timeout_s <= 0) bad("--llm-connect-timeout-s and --llm-timeout-s must be > 0");
  parse_strategy(c.strategy);
  if (c.max_iters < 0) bad("--max-iters must be >= 0");
  if (c.max_hours < 0) bad("--max-hours must be >= 0");
  if (c.plateau < 0) bad("--plateau must be >= 0");
  if (c.min_samples < 3 || c.screen_min_samples < 3) bad("--min-samples and --screen-min-samples must be >= 3");
  if (c.min_seconds < 0 || c.max_seconds <= 0 || c.max_seconds < c.min_seconds)
    bad("--min-seconds/--max-seconds: need 0 <= min <= max and max > 0");
  if (c.screen_max_seconds <= 0 || c.screen_max_seconds < c.screen_min_seconds)
    bad("--screen-min-seconds/--screen-max-seconds: need 0 <= min <= max and max > 0");
  if (c.target_rel_ci <= 0 || c.target_rel_ci >= 1) bad("--target-rel-ci must be in (0, 1)");
  if (c.min_gain < 0 || c.alpha <= 0 || c.alpha >= 0.5) bad("--min-gain must be >= 0 and --alpha in (0, 0.5)");
  if (c.regression_margin < 0 || c.aa_factor < 0) bad("--regression-margin and --aa-factor must be >= 0");
  if (c.build_jobs < 0) bad("--build-jobs must be >= 0");
  if (c.verify_timeout_s <= 0 || c.bench_timeout_s <= 0) bad("timeouts must be > 0");
  if (c.infra_failures < 1) bad("--infra-failures must be >= 1");
  if (c.gpu < 0) bad("--gpu must be >= 0");
  validate_executor(c);
}

std::string tag_from_time(const std::string& iso) {
  // 2026-11-30T14:42:44Z -> 20261130-144244
  std::string t;
  for (char c : iso)
    if (std::isdigit(static_cast<unsigned char>(c))) t += c;
  return t.size() >= 14 ? t.substr(0, 8) + "-" + t.substr(8, 6) : t;
}

fs::path copy_artifact(const fs::path& from, const fs::path& dir, const std::string& name) {
  fs::create_directories(dir);
  fs::path to = dir / (name + from.extension().string());
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  return to;
}

void load_or_die(RunContext& ctx, const std::string& slot, const fs::path& artifact) {
  auto r = ctx.session->load(slot, artifact);
  if (!r.ok())
    throw Fatal(kExitInfrastructure, fmt::format("the harness could not load {} into slot {}: {}",
                                                 artifact.string(), slot, r.message));
}

// The agent as the header records it: who proposes, and how it is reached (never a key).
nlohmann::json agent_header(const RunConfig& c) {
  nlohmann::json a = {{"name", c.agent}};
  if (c.agent == "command") a.update({{"command", c.agent_cmd}, {"sandbox", c.agent_sandbox}});
  if (c.agent == "llm")
    a.update({{"provider", c.llm_provider}, {"base_url", c.llm_base_url}, {"model", c.llm_model}});
  if (c.agent != "tune") a["tune_each"] = c.tune_each;
  return a;
}

nlohmann::json header_json(RunContext& ctx) {
  nlohmann::json h;
  h["run_id"] = ctx.run_id;
  h["kernel"] = ctx.manifest.name;
  h["package"] = ctx.package_prefix;
  h["branch"] = ctx.branch;
  h["base_commit"] = ctx.base_commit;
  h["started"] = ctx.world.clock->now_iso8601();
  h["goal"] = ctx.goal;
  h["agent"] = agent_header(ctx.cfg);
  h["seed"] = ctx.seed;
  h["config"] = to_json(ctx.cfg);
  h["host"] = ctx.world.host_info ? ctx.world.host_info() : nlohmann::json::object();
  h["device"] = ctx.session->device();
  h["compiler"] = {{"path", ctx.toolchain->compiler}, {"version", ctx.toolchain->version},
                   {"identity", ctx.builder->identity()}};
  h["harness"] = {{"executable", ctx.harness_exe.string()}, {"hash", ctx.cache_context.harness_hash},
                  {"build_seconds", ctx.harness_build_seconds}};
  h["roofline"] = {{"peak_flops", ctx.roofline.peak_flops},
                   {"peak_bytes_per_s", ctx.roofline.peak_bytes_per_s},
                   {"source", ctx.roofline.source}};
  h["keep_rule"] = to_json(ctx.rule);
  if (ctx.gpus.size() > 1) h["gpus"] = ctx.gpus;   // the first is the config's gpu and the header's device
  return h;
}

void prepare_toolchain(RunContext& ctx) {
  std::string why;
  ctx.toolchain = ctx.world.find_toolchain(ctx.manifest.backend, &why);
  if (!ctx.toolchain) throw Fatal(kExitInfrastructure, "preflight: " + why);
  ctx.builder = std::make_unique<Builder>(ctx.manifest, ctx.paths, *ctx.toolchain, *ctx.world.runner);
}

void build_and_start_harness(RunContext& ctx) {
  const double start = ctx.world.clock->now_seconds();
  ctx.harness_exe = ctx.world.build_harness(ctx.manifest, ctx.paths, *ctx.toolchain);
  ctx.harness_build_seconds = ctx.world.clock->now_seconds() - start;
  start_harness(ctx);
  ctx.roofline = roofline_for(ctx.paths.home, ctx.session->device());
}

void prepare_toolchain_and_harness(RunContext& ctx) {
  prepare_toolchain(ctx);
  ctx.out().status("building the harness for " + ctx.manifest.name + " (once per package and toolchain)");
  build_and_start_harness(ctx);
}

// The starting kernel through the guard every candidate faces, then built.
struct StartBuild {
  SourceCheck guard;
  BuildResult built;
};

StartBuild guard_and_build_start(RunContext& ctx, const Tunables& start) {
  StartBuild r;
  r.guard = check_package_source(*ctx.builder, ctx.manifest, ctx.manifest.dir, ctx.package_prefix, {}, start,
                                 ctx.world.stop);
  // A source that does not preprocess still builds: the compiler's errors say why.
  if (r.guard.status != SourceCheck::Status::Finding && r.guard.status != SourceCheck::Status::Cancelled)
    r.built = ctx.builder->build(ctx.manifest.dir, start, ctx.run_dir / "baseline", ctx.world.stop);
  return r;
}

void fill_cache_context(RunContext& ctx) {
  ctx.cache_context.source_hash = editable_source_hash(ctx.manifest, ctx.package_dir);
  ctx.cache_context.compiler = ctx.builder->identity();
  ctx.cache_context.harness_hash = harness_hash(ctx.manifest, ctx.paths, *ctx.toolchain);
  ctx.cache_context.workloads_hash = workloads_hash(ctx.manifest);
  // A result judged on other workloads is another result: a focus run keeps what a run over all would not.
  for (const std::string& p : ctx.cfg.focus) ctx.cache_context.workloads_hash += " focus:" + p;
  const auto& d = ctx.session->device();
  ctx.cache_context.device = d.value("name", "?") + " | " + d.value("driver", "");
  if (ctx.cfg.cache) ctx.cache = std::make_unique<ResultCache>(ctx.paths.cache_file());
  else ctx.cache = std::make_unique<ResultCache>();
}

// --focus names timed workloads of this package (checked once the manifest is read).
void check_focus(const RunContext& ctx) {
  std::vector<std::string> timed;
  for (const auto* w : ctx.manifest.timed_workloads()) timed.push_back(w->name);
  if (std::string why = focus_problem(ctx.cfg.focus, timed); !why.empty()) throw usage_error(why);
}

void configure_rule(RunContext& ctx) {
  ctx.rule.min_gain = ctx.cfg.min_gain;
  ctx.rule.aa_factor = ctx.cfg.aa_factor;
  ctx.rule.alpha = ctx.cfg.alpha;
  ctx.rule.regression_margin = ctx.cfg.regression_margin;
}

}  // namespace

void acquire_locks(RunContext& ctx) {
  std::string holder;
  ctx.run_lock = FileLock::try_acquire(ctx.run_dir / "lock", "run " + ctx.run_id, &holder);
  if (!ctx.run_lock)
    throw usage_error(fmt::format("run {} is in use by another autoresearch process ({})", ctx.run_id, holder));
  // One run times on a device at a time; machine-wide, so two checkouts share it.
  // Under SLURM the scheduler gives each job its own device: no lock here.
  if (ctx.cfg.executor == "slurm") return;
  // A run on several GPUs holds each one's lock (it is a GPU run whatever the package says).
  const bool several = ctx.gpus.size() > 1;
  auto lock = [&](const std::string& device) {
    auto l = FileLock::try_acquire(ctx.paths.device_lock(device), "run " + ctx.run_id, &holder);
    if (!l)
      throw usage_error(fmt::format("{} is being measured by another run ({}); two runs on one device spoil "
                                    "each other's timings{}", device, holder,
                                    several ? " (leave it out of --gpus)" : ""));
    return l;
  };
  ctx.device_lock = lock(ctx.manifest.backend == Backend::Cuda || several ? fmt::format("gpu{}", ctx.cfg.gpu) : "cpu");
  if (several)
    for (size_t i = 1; i < ctx.gpus.size(); ++i) ctx.other_gpu_locks.push_back(lock(fmt::format("gpu{}", ctx.gpus[i])));
}

void check_gpus(RunContext& ctx) {
  if (ctx.gpus.empty()) return;
  ctx.cfg.gpu = ctx.gpus.front();   // --gpus 3 is --gpu 3
  if (ctx.gpus.size() == 1) return;
  // Text agents edit the one worktree, one candidate at a time; the tuner's
  // candidates differ only in their tunables, so several are judged at once.
  if (ctx.cfg.agent != "tune")
    throw usage_error(fmt::format("--gpus with {} GPUs needs --agent tune: the {} agent edits the run's one "
                                  "worktree, one candidate at a time (use --gpu N for it)",
                                  ctx.gpus.size(), ctx.cfg.agent));
  if (ctx.cfg.executor == "slurm")
    throw usage_error("--gpus and --executor slurm do not go together: under SLURM each measurement step is a job "
                      "that the scheduler places on a GPU (docs/slurm.md)");
}

void start_harness(RunContext& ctx) {
  ctx.harness = open_run_harness(ctx.world, ctx.cfg, ctx.manifest.backend, ctx.harness_exe);
  ctx.session = std::make_unique<HarnessSession>(*ctx.harness);
  ctx.session->start();
  if (ctx.gpus.size() > 1 && ctx.session->device().value("kind", "") == "cpu")
    throw usage_error(fmt::format("--gpus: the harness of {} measures on the CPU; several GPUs apply to CUDA "
                                  "packages only", ctx.manifest.name));
}

void make_agent(RunContext& ctx) {
  const RunConfig& c = ctx.cfg;
  if (c.agent == "command") {
    CommandAgentSettings s;
    s.command = c.agent_cmd;
    s.timeout_s = c.agent_timeout_s;
    s.sandbox = c.agent_sandbox;
    s.sandbox_writable = c.agent_sandbox_writable;
    s.kernel = ctx.manifest.name;
    ctx.agent = std::make_unique<CommandAgent>(s, *ctx.world.runner, ctx.world.stop);
    return;
  }
  if (c.agent == "llm") {
    ctx.agent = make_llm_agent(ctx);
    return;
  }
  auto tuner = std::make_unique<Tuner>(ctx.manifest, parse_strategy(c.strategy), ctx.seed, ctx.cache.get());
  tuner->set_context_key(ctx.cache_context.key());
  ctx.tuner = tuner.get();
  ctx.agent = std::move(tuner);
}

void setup_new_run(RunContext& ctx) {
  auto& cfg = ctx.cfg;
  validate_config(cfg);
  check_gpus(ctx);
  check_agent_can_start(ctx);
  ctx.manifest = load_manifest(resolve_manifest(ctx.paths, cfg.kernel));
  check_focus(ctx);
  ctx.goal = parse_goal(cfg.goal);
  configure_rule(ctx);
  auto rel = fs::relative(ctx.manifest.dir, ctx.paths.repo);
  if (rel.empty() || rel.string().rfind("..", 0) == 0)
    throw usage_error(fmt::format("the kernel package {} is outside the repository {}; run autoresearch "
                                  "from a checkout that holds it", ctx.manifest.dir.string(), ctx.paths.repo.string()));
  ctx.package_prefix = rel.generic_string();

  ctx.repo_git = ctx.world.open_git(ctx.paths.repo);
  auto head = ctx.repo_git->resolve("HEAD");
  if (!head) throw usage_error("the repository has no commits yet; commit the kernel package first");
  ctx.base_commit = *head;
  auto dirty = ctx.repo_git->dirty_paths(ctx.package_prefix);
  if (!dirty.empty()) {
    std::string list;
    for (size_t i = 0; i < dirty.size() && i < 5; ++i) list += "\n  " + dirty[i];
    throw usage_error(fmt::format("uncommitted changes under {} (commit or stash them first: the run starts "
                                  "from the committed source):{}", ctx.package_prefix, list));
  }
  // One seed, recorded once (the header's "seed" and its config agree): the
  // given one, else one from the clock, in [1, 2^63 - 1] either way.
  if (cfg.seed == 0) {
    unsigned long long clock = static_cast<unsigned long long>(ctx.world.clock->now_seconds() * 1e6);
    cfg.seed = static_cast<long long>((clock ^ 0x9e3779b97f4a7c15ull) & 0x7fffffffffffffffull);
    if (cfg.seed == 0) cfg.seed = 1;
  }
  ctx.seed = static_cast<unsigned long long>(cfg.seed);
  std::string tag = cfg.tag.empty() ? tag_from_time(ctx.world.clock->now_iso8601()) : cfg.tag;
  ctx.run_id = make_run_id(ctx.manifest.name, tag);
  ctx.branch = "autoresearch/" + ctx.run_id;
  ctx.run_dir = ctx.paths.run_dir(ctx.run_id);
  if (fs::exists(ctx.run_dir / kLogFileName))
    throw usage_error(fmt::format("run {} exists already: continue it with `autoresearch run --resume {}` "
                                  "or pick another --tag", ctx.run_id, ctx.run_id));
  if (ctx.repo_git->branch_exists(ctx.branch))
    throw usage_error(fmt::format("branch {} exists already; pick another --tag", ctx.branch));

  exclude_state_dir(ctx.paths);
  fs::create_directories(ctx.run_dir);
  acquire_locks(ctx);
  prepare_toolchain(ctx);

  // The starting kernel, built and verified from the committed checkout before
  // any branch exists.
  ctx.package_dir = ctx.manifest.dir;
  Tunables start = read_tunables_file(ctx.manifest, ctx.manifest.dir / ctx.manifest.tunables_file);
  std::string why;
  if (!satisfies_constraints(ctx.manifest, start, &why))
    throw usage_error(fmt::format("{}: the starting tunables break a constraint: {}",
                                  (ctx.manifest.dir / ctx.manifest.tunables_file).string(), why));
  // The guard every candidate faces, on the starting kernel (otherwise a rule
  // it breaks rejects every candidate for a line none of them touched), and
  // its build, beside the harness's build: neither needs the other, and on a
  // machine without the harness cached that build is most of the setup.
  ctx.out().status("building the harness for " + ctx.manifest.name +
                   " (once per package and toolchain) and, beside it, the starting kernel");
  auto start_build = std::async(std::launch::async, [&ctx, &start] { return guard_and_build_start(ctx, start); });
  build_and_start_harness(ctx);   // a failure here waits for the kernel's build (the future's destructor)
  StartBuild sb = start_build.get();
  const SourceCheck& guard = sb.guard;
  if (guard.status == SourceCheck::Status::Cancelled) throw Fatal(kExitInterrupted, "interrupted before the run started");
  if (guard.status == SourceCheck::Status::Finding)
    throw usage_error("the starting kernel breaks a guard rule: " + guard.finding + "; fix it before a run");
  const BuildResult& built = sb.built;
  if (built.cancelled) throw Fatal(kExitInterrupted, "interrupted before the run started");
  if (!built.ok) throw usage_error("the starting kernel does not build:\n" + built.errors);
  ctx.baseline_artifact = built.artifact;
  ctx.incumbent_build = {{"ok", true}, {"seconds", built.seconds}};
  ctx.incumbent_build.update(build_report_json(built));
  // The baseline's editable sources, so a resume can rebuild it without git.
  for (const auto& e : ctx.manifest.editable) {
    fs::create_directories((ctx.run_dir / "baseline" / "src" / e).parent_path());
    fs::copy_file(ctx.manifest.dir / e, ctx.run_dir / "baseline" / "src" / e, fs::copy_options::overwrite_existing);
  }
  load_or_die(ctx, kBaseSlot, ctx.baseline_artifact);
  ctx.out().status("verifying the starting kernel on every workload");
  auto v = verify_workloads(*ctx.session, kBaseSlot, ctx.all_declared(), ctx.manifest, ctx.seed, cfg);
  if (v.status == StepStatus::Cancelled) throw Fatal(kExitInterrupted, "interrupted before the run started");
  if (v.status != StepStatus::Ok)
    throw usage_error("the starting kernel fails verification, so there is nothing to improve on: " + v.reason);

  ctx.repo_git->add_worktree(ctx.run_dir / "worktree", ctx.branch, ctx.base_commit, true);
  ctx.worktree = ctx.run_dir / "worktree";
  ctx.git = ctx.world.open_git(ctx.worktree);
  ctx.package_dir = ctx.worktree / ctx.package_prefix;
  // From here on the package is the worktree's (identical: the run starts from
  // the committed source), so checks on its files (an editable file turned
  // into a symlink) look where the agent edits.
  ctx.manifest = load_manifest(ctx.package_dir / "manifest.json");
  fill_cache_context(ctx);

  ctx.incumbent = Incumbent{ctx.base_commit, start, copy_artifact(ctx.baseline_artifact, ctx.run_dir / "incumbent", "0"),
                            ctx.cache_context.source_hash, 0};
  load_or_die(ctx, kIncumbentSlot, ctx.incumbent.artifact);
  load_or_die(ctx, kAaSlot, ctx.incumbent.artifact);

  auto header = header_json(ctx);
  ctx.log = std::make_unique<ExperimentLog>(ExperimentLog::create(ctx.run_dir / kLogFileName, header));
  ctx.out().event(fmt::format("run {} on {} ({}); branch {}; log {}", ctx.run_id,
                              ctx.session->device().value("name", "?"), backend_name(ctx.manifest.backend),
                              ctx.branch, (ctx.run_dir / kLogFileName).string()));
  if (!ctx.cfg.focus.empty()) {
    std::vector<std::string> timed;
    for (const auto* w : ctx.manifest.timed_workloads()) timed.push_back(w->name);
    ctx.out().event(fmt::format("focus: gains, noise and the goal judged on {}; every timed workload is measured, "
                                "and none may get slower than {:.1f}%",
                                focus_text(ctx.cfg.focus, timed), ctx.cfg.regression_margin * 100));
  }
  resolve_budgets(ctx);
  make_agent(ctx);
  ctx.log->append({{"type", "verify_baseline"}, {"time", ctx.world.clock->now_iso8601()},
                   {"verify", {{"ok", true}, {"seconds", v.seconds}, {"workloads", v.workloads}}}});
  // One GPU: the loop measures the noise, once it has the first builds going.
  if (ctx.gpus.size() <= 1) {
    ctx.baseline_aa_pending = true;
    return;
  }
  if (!calibrate_aa(ctx, "baseline"))
    throw Fatal(kExitInfrastructure, "could not measure the starting kernel's noise (A/A); see the messages above");
}

void setup_resume(RunContext& ctx, const std::string& run_id, const nlohmann::json& overrides) {
  ctx.run_id = run_id;
  ctx.run_dir = ctx.paths.run_dir(run_id);
  fs::path file = ctx.run_dir / kLogFileName;
  if (!fs::exists(file)) {
    std::string list;
    if (fs::is_directory(ctx.paths.runs()))
      for (const auto& e : fs::directory_iterator(ctx.paths.runs())) list += " " + e.path().filename().string();
    throw usage_error(fmt::format("no run '{}' under {} (runs:{})", run_id, ctx.paths.runs().string(),
                                  list.empty() ? " none" : list));
  }
  auto contents = read_log(file);
  const auto& h = contents.header;
  const nlohmann::json logged = h.value("config", nlohmann::json::object());
  apply_json(ctx.cfg, logged, file.string() + " (header config)");
  // The focus is what every speedup in the log is a geomean over: a resume cannot change it.
  if (overrides.contains("focus") && overrides["focus"] != logged.value("focus", nlohmann::json::array()))
    throw usage_error(fmt::format("--focus cannot change on --resume: run {} judges its gains on {}", run_id,
                                  logged.value("focus", nlohmann::json::array()).empty()
                                      ? std::string("every timed workload")
                                      : logged["focus"].dump()));
  apply_json(ctx.cfg, overrides, "the command line");
  validate_config(ctx.cfg);
  // The GPUs: --gpus again, else --gpu alone, else those the run started with.
  if (ctx.gpus.empty() && !overrides.contains("gpu") && h.contains("gpus") && h["gpus"].is_array())
    for (const auto& g : h["gpus"])
      if (g.is_number_integer()) ctx.gpus.push_back(g.get<int>());
  check_gpus(ctx);
  {
    std::string why;
    int code = kExitStopped;
    if (resume_would_stop_at_once(contents, ctx.cfg, &why, &code)) throw Fatal(static_cast<ExitCode>(code), why);
  }
  check_agent_can_start(ctx);
  configure_rule(ctx);
  ctx.package_prefix = h.value("package", "");
  ctx.branch = h.value("branch", "");
  ctx.base_commit = h.value("base_commit", "");
  ctx.goal = parse_goal(ctx.cfg.goal);
  ctx.seed = h.value("seed", 0ull) + 1000003ull * static_cast<unsigned long long>(contents.lines.size());
  ctx.worktree = ctx.run_dir / "worktree";
  ctx.repo_git = ctx.world.open_git(ctx.paths.repo);
  if (!ctx.repo_git->branch_exists(ctx.branch))
    throw usage_error(fmt::format("run {}: its branch {} is gone; the run cannot continue", run_id, ctx.branch));

  // The manifest as committed on the run's branch (protected, so identical to the
  // base); the checkout's copy only when the worktree is gone.
  fs::path wt_manifest = ctx.worktree / ctx.package_prefix / "manifest.json";
  ctx.manifest = load_manifest(fs::exists(wt_manifest) ? wt_manifest
                                                       : ctx.paths.repo / ctx.package_prefix / "manifest.json");
  check_focus(ctx);
  acquire_locks(ctx);
  if (!fs::exists(ctx.worktree / ".git")) {
    ctx.repo_git->remove_worktree(ctx.worktree);
    ctx.repo_git->add_worktree(ctx.worktree, ctx.branch, ctx.branch, false);
  }
  ctx.git = ctx.world.open_git(ctx.worktree);
  ctx.log = std::make_unique<ExperimentLog>(ExperimentLog::open_for_append(file));
  int last_logged = 0;
  for (const auto& line : contents.lines)
    if (line.value("type", "") == "candidate") last_logged = std::max(last_logged, line.value("id", 0));
  // A candidate in flight when the run died is recorded (with its diff) before
  // the worktree is cleaned; then the branch and the log are made to agree.
  log_abandoned_candidate(ctx, last_logged);
  ctx.git->restore(ctx.branch, ctx.git->resolve(ctx.branch).value_or("HEAD"));
  for (auto& line : reconcile_branch_with_log(ctx, contents.lines)) contents.lines.push_back(std::move(line));
  ctx.package_dir = ctx.worktree / ctx.package_prefix;
  ctx.manifest = load_manifest(ctx.package_dir / "manifest.json");
  prepare_toolchain_and_harness(ctx);
  fill_cache_context(ctx);

  // The baseline: its artifact if still there, else rebuilt from the saved sources.
  fs::path base_dir = ctx.run_dir / "baseline";
  ctx.baseline_artifact = base_dir / ctx.builder->artifact_name();
  if (!fs::exists(ctx.baseline_artifact)) {
    fs::path src = base_dir / "pkg";
    fs::remove_all(src);
    fs::copy(ctx.package_dir, src, fs::copy_options::recursive);
    for (const auto& e : ctx.manifest.editable)
      fs::copy_file(base_dir / "src" / e, src / e, fs::copy_options::overwrite_existing);
    auto b = ctx.builder->build(src, read_tunables_file(ctx.manifest, src / ctx.manifest.tunables_file), base_dir,
                                ctx.world.stop);
    if (!b.ok) throw Fatal(kExitInfrastructure, "could not rebuild the run's baseline:\n" + b.errors);
  }
  load_or_die(ctx, kBaseSlot, ctx.baseline_artifact);

  // The incumbent: the branch's head as committed.
  Tunables inc = read_tunables_file(ctx.manifest, ctx.package_dir / ctx.manifest.tunables_file);
  auto b = ctx.builder->build(ctx.package_dir, inc, ctx.run_dir / "incumbent" / "resume", ctx.world.stop);
  if (!b.ok) throw Fatal(kExitInfrastructure, "could not rebuild the incumbent on " + ctx.branch + ":\n" + b.errors);
  ctx.incumbent = Incumbent{ctx.git->head(), inc, b.artifact, ctx.cache_context.source_hash, 0};
  ctx.incumbent_build = {{"ok", true}, {"seconds", b.seconds}};
  ctx.incumbent_build.update(build_report_json(b));
  load_or_die(ctx, kIncumbentSlot, ctx.incumbent.artifact);
  load_or_die(ctx, kAaSlot, ctx.incumbent.artifact);

  for (const auto& line : contents.lines) {
    std::string type = line.value("type", "");
    if (type == "baseline" && line.contains("bench")) ctx.incumbent_rows = line["bench"].value("workloads", nlohmann::json());
    if (type != "candidate") continue;
    ExperimentSummary s = summary_from_line(line);
    ctx.last_id = std::max(ctx.last_id, s.id);
    if (line.contains("tokens") && line["tokens"].is_object())
      ctx.tokens_total += line["tokens"].value("in", 0LL) + line["tokens"].value("out", 0LL);
    if (line.contains("cost_usd") && line["cost_usd"].is_number()) ctx.cost_total += line["cost_usd"].get<double>();
    if (s.outcome.decision == Decision::Keep) {
      ctx.keeps++;
      ctx.last_keep_id = std::max(ctx.last_keep_id, s.id);
      ctx.incumbent.candidate_id = s.id;
      if (line.contains("bench") && line["bench"].is_object())
        ctx.incumbent_rows = line["bench"].value("workloads", nlohmann::json());
    }
    ctx.history.push_back(s);
  }
  resolve_budgets(ctx);
  make_agent(ctx);
  for (const auto& s : ctx.history) {
    if (!describes_candidate(s.outcome.decision)) continue;
    Proposal p;
    p.tunables = s.tunables;
    ctx.agent->observe(p, s.outcome);
  }
  ctx.log->append({{"type", "resume"}, {"time", ctx.world.clock->now_iso8601()}, {"after_id", ctx.last_id},
                   {"torn_tail_dropped", contents.torn_tail}, {"overrides", overrides},
                   {"device", ctx.session->device()}});
  ctx.out().event(fmt::format("resuming run {} after candidate #{} ({} kept so far)", run_id, ctx.last_id, ctx.keeps));
  if (!calibrate_aa(ctx, "resume"))
    throw Fatal(kExitInfrastructure, "could not re-measure the noise (A/A) on resume");
  if (ctx.keeps > 0 && !measure_vs_baseline(ctx, kIncumbentSlot))
    throw Fatal(kExitInfrastructure, "could not re-measure the best against the baseline on resume");
}

ExperimentSummary summary_from_line(const nlohmann::json& line) {
  ExperimentSummary s;
  s.id = line.value("id", 0);
  s.agent = line.value("agent", "");
  s.idea = line.value("idea", "");
  if (line.contains("tunables") && line["tunables"].is_object())
    for (const auto& [k, v] : line["tunables"].items())
      if (v.is_number_integer()) s.tunables[k] = v.get<long long>();
  s.outcome.decision = parse_decision(line.value("decision", "")).value_or(Decision::Error);
  s.outcome.reason = line.value("reason", "");
  if (line.contains("quick_geomean_us") && line["quick_geomean_us"].is_number())
    s.outcome.quick_geomean_us = line["quick_geomean_us"].get<double>();
  if (line.contains("speedup") && line["speedup"].is_number()) s.outcome.speedup = line["speedup"].get<double>();
  if (line.contains("diff") && line["diff"].is_string() && !line["diff"].get<std::string>().empty() &&
      line.value("agent", "") != "tune")
    s.diff_summary = summarize_diff(line["diff"].get<std::string>());
  return s;
}

}  // namespace ar
