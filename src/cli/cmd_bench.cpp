// `autoresearch bench`: build, verify every workload, then time the kernel
// against a second copy of itself, interleaved — which gives the per-workload
// table and, for free, the A/A noise a keep would have to beat. With
// --against, against another version of the package instead (bench_against.h).
#include <iostream>

#include <fmt/format.h>

#include "autoresearch/decide/keep_rule.h"
#include "autoresearch/loop/evaluation.h"
#include "autoresearch/util/errors.h"
#include "bench_against.h"
#include "commands.h"
#include "one_shot.h"
#include "options.h"

namespace ar {

struct BenchArgs {
  ConfigFlags f;
  bool json = false;
  std::string workloads = "timed";
  std::vector<std::string> sets;
  std::string against;
};

CommandAction add_bench_command(CLI::App& sub) {
  auto a = std::make_shared<BenchArgs>();
  add_config_flags(sub, a->f, {"kernel", "gpu", "seed", "min_samples", "min_seconds", "max_seconds",
                               "target_rel_ci", "cold", "verify_timeout_s", "bench_timeout_s"});
  sub.add_flag("--json", a->json, "print the results as JSON on stdout");
  sub.add_option("--workloads", a->workloads, "which to time: timed (default), quick, all, or name,name,...");
  sub.add_option("--set", a->sets, "override a tunable, NAME=VALUE (repeatable)");
  sub.add_option("--against", a->against,
                 "time the current source against another version of the package, interleaved: a git "
                 "revision (HEAD, a run's branch, a commit) or a folder; both are verified first");
  sub.footer(
      "Runs the guard a run's candidates face first and says so. The table goes to stderr; --json to stdout.\n"
      "With --against REF the table gains REF's time and the ratio per workload (above 1: this source is faster),\n"
      "and a line with the geomean and its 95% CI; --set applies to this source only, REF keeps its tunables.\n"
      "Exit codes: 0 verified and measured; 5 fails verification or the guard; 2 bad usage; 4 infrastructure.");
  return [a] {
    Paths paths = discover_paths(std::filesystem::current_path());
    RunConfig cfg = layered_config(a->f, paths, nullptr);
    RealWorld real;
    TerminalPrinter& printer = real.printer;
    RealClock& clock = real.clock;
    OneShot o = prepare_one_shot(real.world, cfg, a->sets, true);
    if (!o.guard.pass()) {
      printer.clear_status();
      if (a->json)
        std::cout << nlohmann::json{{"kernel", o.manifest.name},
                                    {"guard", {{"pass", false}, {"finding", o.guard.finding}}}}
                         .dump(2)
                  << "\n";
      fmt::print(stderr, "{}: {}\n", o.manifest.name, o.guard_summary());
      return kExitVerifyFailed;
    }
    auto timed = select_workloads(o.manifest, a->workloads);
    unsigned long long seed = cfg.seed ? cfg.seed : static_cast<unsigned long long>(clock.now_seconds() * 1e6);
    if (!a->against.empty()) return run_bench_against(real.world, o, cfg, {a->against, a->workloads, a->json}, seed);

    printer.status(fmt::format("verifying {} on {} workloads", o.manifest.name, o.manifest.workloads.size()));
    auto v = verify_workloads(*o.session, "a", o.manifest.workloads, o.manifest, seed, cfg);
    if (v.status == StepStatus::Cancelled) throw Fatal(kExitInterrupted, "interrupted");
    nlohmann::json out = {{"kernel", o.manifest.name}, {"tunables", o.tunables}, {"device", o.session->device()},
                          {"guard", {{"pass", true}, {"scope_checked", o.scope_checked}}},
                          {"verify", {{"pass", v.status == StepStatus::Ok}, {"workloads", v.workloads}}}};
    if (v.status != StepStatus::Ok) {
      printer.clear_status();
      if (a->json) std::cout << out.dump(2) << "\n";
      fmt::print(stderr, "{} fails verification: {}\n", o.manifest.name, v.reason);
      return v.status == StepStatus::Wrong || v.status == StepStatus::Crash || v.status == StepStatus::Timeout ||
                     v.status == StepStatus::Guard
                 ? kExitVerifyFailed
                 : kExitInfrastructure;
    }
    printer.status(fmt::format("timing {} workloads (interleaved against a second copy for the noise)", timed.size()));
    auto r = measure_pair(*o.session, "a", "b", timed, o.manifest, full_sampling(cfg), seed, "b", cfg);
    if (r.status == StepStatus::Cancelled) throw Fatal(kExitInterrupted, "interrupted");
    if (r.status != StepStatus::Ok) {
      printer.clear_status();
      fmt::print(stderr, "measurement failed: {}\n", r.reason);
      return r.status == StepStatus::Wrong || r.status == StepStatus::Guard ? kExitVerifyFailed : kExitInfrastructure;
    }
    o.session->stop();
    printer.clear_status();
    auto rows = table_rows(o.manifest, timed, r, false);
    double aa = aa_half_width(r.comparison);
    out["bench"] = {{"workloads", bench_rows_json(rows, o.roofline)},
                    {"aa_half_width", aa},
                    {"gpu_seconds", r.gpu_seconds},
                    {"roofline", {{"peak_flops", o.roofline.peak_flops},
                                  {"peak_bytes_per_s", o.roofline.peak_bytes_per_s},
                                  {"source", o.roofline.source}}},
                    {"extras", r.extras}};
    if (a->json) {
      std::cout << out.dump(2) << "\n";
    } else {
      std::string t;
      for (const auto& [k, val] : o.tunables) t += fmt::format(" {}={}", k, val);
      // Human output goes to stderr (README); stdout is for --json.
      fmt::print(stderr, "{}\n", o.guard_summary());
      fmt::print(stderr, "{}", render_bench_table(rows, o.roofline,
                                                  fmt::format("{} on {} —{}", o.manifest.name,
                                                              o.session->device().value("name", "?"), t)));
      fmt::print(stderr, "verified on {} workloads; noise (A/A, 95% half-width of the geomean): ±{:.2f}%\n",
                 o.manifest.workloads.size(), aa * 100);
    }
    return kExitOk;
  };
}

}  // namespace ar
