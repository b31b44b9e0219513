// `autoresearch verify`: correctness only, on every declared workload and on
// hidden ones drawn from the manifest's ranges.
#include <iostream>

#include <fmt/format.h>

#include "autoresearch/loop/evaluation.h"
#include "autoresearch/util/errors.h"
#include "commands.h"
#include "one_shot.h"
#include "options.h"
#include "verify_dry_run.h"

namespace ar {

struct VerifyArgs {
  ConfigFlags f;
  bool json = false;
  bool dry_run = false;
  std::vector<std::string> sets;
};

CommandAction add_verify_command(CLI::App& sub) {
  auto a = std::make_shared<VerifyArgs>();
  add_config_flags(sub, a->f, {"kernel", "gpu", "seed", "hidden", "verify_timeout_s"});
  sub.add_flag("--json", a->json, "print the results as JSON on stdout");
  sub.add_option("--set", a->sets, "override a tunable, NAME=VALUE (repeatable)");
  sub.add_flag("--dry-run", a->dry_run,
               "no device: compile the problem for the host and the kernel, and check the manifest against the "
               "problem (outputs, params, sizes)");
  sub.footer(
      "Runs the guard a run's candidates face first (scope: only editable files changed against HEAD;\n"
      "the scan of the preprocessed source) and says so. Results go to stderr; --json to stdout.\n"
      "Exit codes: 0 correct on every workload; 5 wrong (or crashes, or hangs, or a guard finding);\n"
      "2 bad usage; 4 infrastructure.\n"
      "--dry-run needs no GPU: it compiles the problem's host side (with the package's compiler) and asks it\n"
      "which outputs it reports and which workload params it reads, holds the manifest's tolerances and\n"
      "workloads (declared, the hidden ranges' corners, draws from them) against that, and compiles the\n"
      "kernel. Exit codes: 0 nothing wrong; 2 the package is wrong (each finding names the file and field);\n"
      "4 no compiler.");
  return [a]() -> int {
    Paths paths = discover_paths(std::filesystem::current_path());
    RunConfig cfg = layered_config(a->f, paths, nullptr);
    RealWorld real;
    if (a->dry_run) return verify_dry_run(real.world, paths, cfg, a->sets, a->json);
    TerminalPrinter& printer = real.printer;
    RealClock& clock = real.clock;
    OneShot o = prepare_one_shot(real.world, cfg, a->sets, true);
    if (!o.guard.pass()) {
      // What a run would do with this source: reject it before building.
      printer.clear_status();
      if (a->json)
        std::cout << nlohmann::json{{"kernel", o.manifest.name}, {"pass", false}, {"reason", o.guard_summary()},
                                    {"guard", {{"pass", false}, {"finding", o.guard.finding}}}}
                         .dump(2)
                  << "\n";
      fmt::print(stderr, "{}: {}\n", o.manifest.name, o.guard_summary());
      return kExitVerifyFailed;
    }
    unsigned long long seed = cfg.seed ? cfg.seed : static_cast<unsigned long long>(clock.now_seconds() * 1e6);
    auto workloads = o.manifest.workloads;
    int hidden = cfg.hidden >= 0 ? cfg.hidden : o.manifest.hidden.count;
    if (!o.manifest.hidden.params.empty()) {
      auto h = draw_hidden_workloads(o.manifest, hidden, seed ^ 0x41d);
      workloads.insert(workloads.end(), h.begin(), h.end());
    }
    printer.status(fmt::format("verifying {} on {} workloads", o.manifest.name, workloads.size()));
    auto v = verify_workloads(*o.session, "a", workloads, o.manifest, seed, cfg);
    o.session->stop();
    printer.clear_status();
    if (v.status == StepStatus::Cancelled) throw Fatal(kExitInterrupted, "interrupted");
    bool pass = v.status == StepStatus::Ok;
    if (a->json) {
      std::cout << nlohmann::json{{"kernel", o.manifest.name}, {"pass", pass}, {"reason", v.reason},
                                  {"guard", {{"pass", true}, {"scope_checked", o.scope_checked}}},
                                  {"seed", seed}, {"workloads", v.workloads}}
                       .dump(2)
                << "\n";
    } else {
      // Human output goes to stderr (README); stdout is for --json.
      fmt::print(stderr, "{}\n", o.guard_summary());
      for (const auto& w : v.workloads) {
        std::string worst;
        const nlohmann::json worst_by_output = w.value("worst", nlohmann::json::object());   // items() must not outlive it
        for (const auto& [out, e] : worst_by_output.items())
          worst += fmt::format("  {}: max abs {:.2e}, max rel {:.2e}", out, e.value("max_abs_err", 0.0),
                               e.value("max_rel_err", 0.0));
        fmt::print(stderr, "{:<5} {:<28}{}\n", w.value("pass", false) ? "ok" : "FAIL",
                   w.value("name", "?") + (w.contains("params") ? " " + w["params"].dump() : ""), worst);
      }
      fmt::print(stderr, "{}", pass ? fmt::format("{}: correct on {} workloads (seed {})\n", o.manifest.name,
                                                  workloads.size(), seed)
                                    : fmt::format("{}: {}\n", o.manifest.name, v.reason));
    }
    if (pass) return kExitOk;
    return v.status == StepStatus::Error ? kExitInfrastructure : kExitVerifyFailed;
  };
}

}  // namespace ar
