// `autoresearch dispatch [RUN]`: the run's best and the verified candidates
// that beat it on some workloads, in one cubin whose ar_plan picks a variant
// from the shape (build/dispatch.h). It is verified on every workload, hidden
// ones included, measured interleaved against the single best on every
// workload (and again, to confirm), judged by the keep rule, and committed to
// the package's dispatch/ folder only when it beats the best.
#include <iostream>

#include <fmt/format.h>

#include "autoresearch/build/dispatch.h"
#include "autoresearch/decide/keep_rule.h"
#include "autoresearch/log/dispatch_plan.h"
#include "autoresearch/loop/evaluation.h"
#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"
#include "autoresearch/util/subprocess.h"
#include "commands.h"
#include "one_shot.h"
#include "options.h"
#include "run_admin.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

struct DispatchArgs {
  ConfigFlags f;
  std::string run;
  int max_variants = 4;
  bool commit = true;
  std::string workloads = "all";
};

std::string str(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>() : "";
}

// The commit a candidate's source was made from: its own when it was kept,
// else its incumbent's (the line's "base", or the last keep before it).
std::string source_commit(const LogContents& log, const nlohmann::json& line) {
  if (str(line, "decision") == "keep" && !str(line, "commit").empty()) return str(line, "commit");
  const int id = line.value("id", 0);
  int base = -1;
  if (line.contains("base") && line.at("base").is_number_integer()) base = line.at("base").get<int>();
  if (base < 0)
    for (const auto& l : log.lines)
      if (str(l, "type") == "candidate" && str(l, "decision") == "keep" && l.value("id", 0) < id) base = l.value("id", 0);
  if (base > 0)
    if (const nlohmann::json* b = candidate_line(log, base); b && !str(*b, "commit").empty()) return str(*b, "commit");
  return str(log.header, "base_commit");
}

// The variant's kernel source: the file at its commit, with the candidate's
// own diff applied when it was not kept (git apply in a scratch folder).
std::string variant_source(Git& git, ProcessRunner& runner, const LogContents& log, const nlohmann::json* line,
                           const std::string& kernel_path, const fs::path& scratch) {
  const std::string commit = line ? source_commit(log, *line) : str(log.header, "base_commit");
  auto text = git.show(commit, kernel_path);
  if (!text) throw usage_error(fmt::format("{} is not in this repository's history: fetch the run's branch first", commit));
  if (!line || str(*line, "decision") == "keep") return *text;
  bool touched = false;
  if (line->contains("files") && line->at("files").is_array())
    for (const auto& f : line->at("files")) touched = touched || (f.is_string() && f.get<std::string>() == kernel_path);
  if (!touched) return *text;
  fs::remove_all(scratch);
  write_file_atomic(scratch / kernel_path, *text);
  write_file_atomic(scratch / "candidate.diff", str(*line, "diff"));
  ProcessSpec spec;
  spec.argv = {"git", "apply", "--include=" + kernel_path, "candidate.diff"};
  spec.cwd = scratch;
  spec.timeout = std::chrono::seconds(60);
  auto p = runner.run(spec);
  if (!p.ok())
    throw usage_error(fmt::format("candidate #{}'s diff does not apply to {} at {}: {}", line->value("id", 0), kernel_path,
                                  commit.substr(0, 10), p.err));
  return read_file(scratch / kernel_path);
}

Tunables variant_tunables(const Manifest& m, Git& git, const LogContents& log, const nlohmann::json* line,
                          const std::string& tunables_path) {
  if (line && line->contains("tunables") && line->at("tunables").is_object() && !line->at("tunables").empty()) {
    Tunables t;
    for (const auto& [k, v] : line->at("tunables").items())
      if (v.is_number_integer()) t[k] = v.get<long long>();
    return t;
  }
  auto text = git.show(line ? source_commit(log, *line) : str(log.header, "base_commit"), tunables_path);
  return text ? parse_tunables_text(m, *text, tunables_path) : m.default_tunables();
}

std::string label_of(const nlohmann::json* line) {
  if (!line) return "the start";
  return fmt::format("candidate #{} ({})", line->value("id", 0), str(*line, "idea"));
}

// The per-workload table: which variant, the best's and the dispatch's medians, the ratio.
void print_table(const Comparison& c, const std::map<std::string, int>& variant_of) {
  fmt::print(stderr, "{:<28} {:>7} {:>12} {:>12} {:>9}\n", "workload", "variant", "best µs", "dispatch µs", "speedup");
  for (const auto& w : c.workloads) {
    auto it = variant_of.find(w.workload);
    fmt::print(stderr, "{:<28} {:>7} {:>12.2f} {:>12.2f} {:>8.3f}x\n", w.workload.substr(0, 28),
               it == variant_of.end() ? std::string("?") : std::to_string(it->second), w.incumbent.median,
               w.candidate.median, w.ratio);
  }
  fmt::print(stderr, "geomean {:.4f}x (95% CI {:.4f}..{:.4f})\n", c.speedup, c.ci_low, c.ci_high);
}

}  // namespace

CommandAction add_dispatch_command(CLI::App& sub) {
  auto a = std::make_shared<DispatchArgs>();
  sub.add_option("run", a->run, "run id (default: the latest run)");
  add_config_flags(sub, a->f, {"gpu", "seed", "hidden", "min_samples", "min_seconds", "max_seconds", "target_rel_ci",
                               "cold", "verify_timeout_s", "bench_timeout_s", "min_gain", "alpha",
                               "regression_margin"});
  sub.add_option("--max-variants", a->max_variants, "most variants in the cubin, the best included (1..16)")
      ->check(CLI::Range(1, 16));
  sub.add_option("--workloads", a->workloads, "measured against the best: all (default), timed, quick, or name,...");
  sub.add_flag("!--no-commit", a->commit, "measure and report, commit nothing");
  sub.footer(
      "Reads the run's per-workload winners (as `report` shows them): the run's best serves every workload\n"
      "unless another verified candidate beat it there by more than the min-gain. The best and those\n"
      "candidates are compiled into one cubin (relocatable device code, entry points renamed, nvlink) with a\n"
      "generated ar_plan that picks the variant of the nearest known workload from the shapes it reads\n"
      "through the manifest's \"dispatch\" section. The dispatch is verified on every workload, hidden ones\n"
      "included, then measured interleaved against the best (built from the checkout, which must be the\n"
      "run's best) and confirmed in a second measurement; it is committed (kernels/NAME/dispatch/) only when\n"
      "the keep rule says it is faster and no workload is significantly slower.\n"
      "Exit codes: 0 committed, or nothing to dispatch; 1 not faster (nothing committed); 5 wrong;\n"
      "2 bad usage; 4 infrastructure.");
  return [a]() -> int {
    Paths paths = discover_paths(fs::current_path());
    RealWorld real;
    const std::string run = a->run.empty() ? latest_run(paths) : a->run;
    const LogContents log = read_log(run_log_file(paths, run));
    RunConfig cfg = layered_config(a->f, paths, nullptr);
    cfg.kernel = str(log.header, "kernel");
    if (cfg.kernel.empty() && log.header.contains("config")) cfg.kernel = log.header["config"].value("kernel", "");
    if (cfg.kernel.empty()) throw usage_error(run + ": the log's header names no kernel package");
    const Manifest m = load_manifest(resolve_manifest(paths, cfg.kernel));
    if (m.backend != Backend::Cuda) throw usage_error(m.name + ": dispatch builds CUDA packages only");
    if (!m.dispatch)
      throw usage_error(m.name + ": the manifest has no \"dispatch\" section: name the params header, the params type "
                                 "and how the kernel reads each shape param (docs/packages.md, \"dispatch\")");

    DispatchPlan plan = plan_dispatch(log, a->max_variants);
    for (const auto& note : plan.left_out) fmt::print(stderr, "note: {}\n", note);
    if (plan.candidates.size() < 2) {
      fmt::print(stderr, "{}: on no workload did another verified candidate beat the best by more than the "
                         "min-gain: nothing to dispatch\n", run);
      return 0;
    }

    auto git = real.world.open_git(paths.repo);
    const fs::path pkg_rel = fs::relative(m.dir, git->toplevel());
    const std::string kernel_path = (pkg_rel / m.kernel_source).generic_string();
    const std::string tunables_path = (pkg_rel / m.tunables_file).generic_string();
    const nlohmann::json* best_line = plan.best_candidate ? candidate_line(log, plan.best_candidate) : nullptr;
    const std::string best_commit = best_line ? str(*best_line, "commit") : str(log.header, "base_commit");
    if (git->head() != best_commit)
      throw usage_error(fmt::format("check out the run's best first (git checkout {}): HEAD is {}, the best is {}",
                                    str(log.header, "branch"), git->head().substr(0, 10), best_commit.substr(0, 10)));
    if (!git->dirty_paths(pkg_rel.generic_string()).empty())
      throw usage_error(m.name + " has uncommitted changes: the single best is built from the checkout");

    const fs::path work = paths.state() / "dispatch" / run;
    std::vector<DispatchVariant> variants;
    for (size_t k = 0; k < plan.candidates.size(); ++k) {
      const int id = plan.candidates[k];
      const nlohmann::json* line = id ? candidate_line(log, id) : nullptr;
      if (id && !line) throw usage_error(fmt::format("{}: candidate #{} has no line in the log", run, id));
      variants.push_back({id, label_of(line),
                          variant_source(*git, *real.world.runner, log, line, kernel_path, work / "scratch"),
                          variant_tunables(m, *git, log, line, tunables_path)});
    }
    // The selector knows the shapes the run measured; every other shape (a
    // declared workload the run never timed, a hidden one, production) gets
    // the variant of the nearest of them.
    std::vector<DispatchCase> cases;
    for (const Workload& w : m.workloads)
      if (auto it = plan.variant_of.find(w.name); it != plan.variant_of.end())
        cases.push_back({w.name, dispatch_shape(*m.dispatch, w.params), it->second});
    if (cases.empty()) throw usage_error(run + ": none of the workloads its candidates were measured on is declared now");
    std::map<std::string, int> variant_of;
    for (const Workload& w : m.workloads)
      variant_of[w.name] = nearest_case(cases, dispatch_shape(*m.dispatch, w.params)).variant;
    for (size_t k = 0; k < variants.size(); ++k) {
      std::string serves;
      for (const Workload& w : m.workloads)
        if (variant_of[w.name] == static_cast<int>(k) + 1) serves += (serves.empty() ? "" : ", ") + w.name;
      fmt::print(stderr, "variant {}: {}{}\n", k + 1, variants[k].label, k == 0 ? " (the run's best)" : "");
      if (k > 0) fmt::print(stderr, "  serves {}\n", serves);
    }

    cfg.kernel = m.dir.string();
    OneShot o = prepare_one_shot(real.world, cfg, {}, true);
    if (!o.guard.pass()) {
      fmt::print(stderr, "{}: {}\n", m.name, o.guard_summary());
      return kExitVerifyFailed;
    }
    real.printer.status("building the dispatch");
    DispatchBuild built = build_dispatch(*o.builder, variants, cases, "run " + run, work / "build", real.world.stop);
    if (built.result.cancelled) throw Fatal(kExitInterrupted, "interrupted");
    if (!built.result.ok) throw usage_error("the dispatch does not build: " + built.result.errors);
    auto loaded = o.session->load("b", built.result.artifact);
    if (!loaded.ok()) throw usage_error("the harness cannot load the dispatch: " + loaded.message);

    unsigned long long seed = cfg.seed ? cfg.seed : static_cast<unsigned long long>(real.clock.now_seconds() * 1e6);
    std::vector<Workload> every = m.workloads;
    const int hidden = cfg.hidden >= 0 ? cfg.hidden : m.hidden.count;
    if (!m.hidden.params.empty())
      for (Workload& h : draw_hidden_workloads(m, hidden, seed ^ 0x41d)) {
        variant_of[h.name] = nearest_case(cases, dispatch_shape(*m.dispatch, h.params)).variant;
        every.push_back(std::move(h));
      }
    real.printer.status(fmt::format("verifying the dispatch on {} workloads", every.size()));
    auto v = verify_workloads(*o.session, "b", every, m, seed, cfg);
    if (v.status == StepStatus::Cancelled) throw Fatal(kExitInterrupted, "interrupted");
    real.printer.clear_status();
    if (v.status != StepStatus::Ok) {
      fmt::print(stderr, "the dispatch fails verification: {}\n", v.reason);
      return decision_for_failure(v.status, v.reason) == Decision::Error ? kExitInfrastructure : kExitVerifyFailed;
    }
    fmt::print(stderr, "the dispatch is correct on {} workloads ({} hidden)\n", every.size(), every.size() - m.workloads.size());

    std::vector<Workload> measured = a->workloads == "all" ? every : select_workloads(m, a->workloads);
    // Judged where the dispatch runs other code than the best (the workloads
    // another variant serves): there it must win by the keep rule, in the
    // measurement and again in the confirmation; everywhere else (the best's
    // own code) no workload may be significantly slower.
    std::optional<Comparison> runs[2], served[2];
    for (int pass = 0; pass < 2; ++pass) {
      real.printer.status(fmt::format("{} the dispatch against the best on {} workloads", pass ? "confirming" : "measuring",
                                      measured.size()));
      auto r = measure_pair(*o.session, "a", "b", measured, m, full_sampling(cfg), seed ^ (0x5eed + pass), "b", cfg);
      if (r.status == StepStatus::Cancelled) throw Fatal(kExitInterrupted, "interrupted");
      if (r.status != StepStatus::Ok) {
        real.printer.clear_status();
        fmt::print(stderr, "the dispatch could not be measured: {}\n", r.reason);
        return decision_for_failure(r.status, r.reason) == Decision::Error ? kExitInfrastructure : kExitVerifyFailed;
      }
      runs[pass] = r.comparison;
      std::vector<PairedSamples> mine;
      for (const PairedSamples& p : r.pairs)
        if (variant_of[p.workload] != 1) mine.push_back(p);
      if (!mine.empty()) served[pass] = compare(mine);
    }
    real.printer.clear_status();
    print_table(*runs[0], variant_of);
    if (!served[0]) {
      fmt::print(stderr, "no measured workload is served by another variant than the best: nothing to dispatch\n");
      return 0;
    }
    const KeepRuleConfig rule = keep_rule_from(cfg);
    // No A/A here: the bars are the min-gain, significance, the confirmation and no regression.
    Verdict verdict = judge_keep(*served[0], served[1], 0.0, rule);
    for (const auto& run_all : runs)
      if (const WorkloadComparison* slow = significant_regression(*run_all, rule.regression_margin); slow && verdict.pass)
        verdict = {false, fmt::format("{} is {:.2f}% slower (significantly)", slow->workload, (1 / slow->ratio - 1) * 100)};
    fmt::print(stderr, "on the {} workloads other variants serve: {:.4f}x (confirmed {:.4f}x); on all: {:.4f}x\n",
               served[0]->workloads.size(), served[0]->speedup, served[1]->speedup, runs[0]->speedup);
    fmt::print(stderr, "{}: {}\n", verdict.pass ? "faster than the best" : "not faster than the best", verdict.reason);

    nlohmann::json record = {{"run", run},
                             {"best_candidate", plan.best_candidate},
                             {"best_commit", best_commit},
                             {"shape", nlohmann::json::object()},
                             {"variants", nlohmann::json::array()},
                             {"known_shapes", nlohmann::json::array()},
                             {"workloads", nlohmann::json::array()},
                             {"measurement", to_json(*runs[0])},
                             {"confirmation", to_json(*runs[1])},
                             {"served_measurement", to_json(*served[0])},
                             {"served_confirmation", to_json(*served[1])},
                             {"verdict", {{"pass", verdict.pass}, {"reason", verdict.reason}}},
                             {"seed", seed},
                             {"device", o.session->device()},
                             {"build", built.commands}};
    for (const auto& [k, e] : m.dispatch->shape) record["shape"][k] = e;
    for (size_t k = 0; k < variants.size(); ++k)
      record["variants"].push_back({{"variant", k + 1}, {"candidate", variants[k].candidate}, {"label", variants[k].label},
                                    {"tunables", variants[k].tunables}, {"source", fmt::format("variant_{}.cu", k + 1)}});
    for (const auto& c : cases)
      record["known_shapes"].push_back({{"name", c.workload}, {"variant", c.variant}, {"shape", c.shape}});
    for (const Workload& w : every) record["workloads"].push_back({{"name", w.name}, {"variant", variant_of[w.name]}});
    write_file_atomic(work / "dispatch.json", record.dump(2) + "\n");
    if (!verdict.pass || !a->commit) {
      fmt::print(stderr, "nothing committed; the record is in {}\n", (work / "dispatch.json").string());
      return verdict.pass ? 0 : 1;
    }
    const fs::path dir = m.dir / "dispatch";
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (size_t k = 0; k < variants.size(); ++k)
      write_file_atomic(dir / fmt::format("variant_{}.cu", k + 1), variants[k].source);
    fs::copy_file(dispatch_unit_path(work / "build"), dir / "dispatch.cu");
    write_file_atomic(dir / "dispatch.json", record.dump(2) + "\n");
    const std::string sha = git->commit_all(fmt::format(
        "{}: dispatch of {} variants from run {} ({:.3f}x the best where another variant serves, confirmed {:.3f}x)",
        m.name, variants.size(), run, served[0]->speedup, served[1]->speedup));
    fmt::print(stderr, "committed {} ({})\n", sha.substr(0, 10), (pkg_rel / "dispatch").generic_string());
    return 0;
  };
}

}  // namespace ar
