// `autoresearch calibrate`: measures the keep rule itself on real hardware
// (SPEC §8). The kernel is proposed against itself trial after trial, judged
// exactly as `run` judges a candidate: with --planted 0 every keep is a false
// keep; with --planted F the incumbent carries a timing pad that makes the
// candidate truly F faster, and the keep rate is the rule's power. The numbers
// are the result: the command exits 0 whenever it ran.
#include <chrono>
#include <iostream>

#include <fmt/format.h>

#include "autoresearch/util/errors.h"
#include "calibrate_report.h"
#include "calibrate_trials.h"
#include "commands.h"
#include "one_shot.h"
#include "options.h"

namespace ar {

namespace {

struct CalibrateArgs {
  ConfigFlags f;
  std::string workloads;
  int trials = 300;
  double planted = 0;
  bool json = false;
};

constexpr double kMaxPlanted = 10;   // an 11x "speedup" is not a calibration any more

}  // namespace

CommandAction add_calibrate_command(CLI::App& sub) {
  auto a = std::make_shared<CalibrateArgs>();
  add_config_flags(sub, a->f,
                   {"kernel", "gpu", "seed", "min_samples", "min_seconds", "max_seconds", "target_rel_ci", "cold",
                    "min_gain", "alpha", "regression_margin", "aa_factor", "aa_refresh", "bench_timeout_s"});
  sub.add_option("--workloads", a->workloads, "the workloads each trial times: quick, timed, or name[,name]")
      ->required();
  sub.add_option("--trials", a->trials, "trials (candidates judged), e.g. 300 for an A/A false-keep rate")
      ->capture_default_str();
  sub.add_option("--planted", a->planted,
                 "true speedup planted in the candidate: 0 for A/A, 0.02 for a candidate truly 2% faster")
      ->capture_default_str();
  sub.add_flag("--json", a->json, "print the summary and every trial as JSON on stdout");
  sub.footer(
      "Each trial is judged as `run` judges a candidate: a full interleaved measurement, the confirming "
      "re-run when it passes, and the keep rule, with the A/A noise re-measured every --aa-refresh trials. "
      "Exit codes: 0 it ran (the keep rate is the result); 2 bad usage; 4 infrastructure failure.");
  return [a] {
    if (a->trials < 1) throw usage_error("--trials: at least 1");
    if (!(a->planted >= 0 && a->planted <= kMaxPlanted))
      throw usage_error(fmt::format("--planted: a fraction in [0, {}] (0.02 = 2% faster)", kMaxPlanted));
    Paths paths = discover_paths(std::filesystem::current_path());
    RunConfig cfg = layered_config(a->f, paths, nullptr);
    RealWorld real;
    TerminalPrinter& printer = real.printer;
    RealClock& clock = real.clock;
    Printer& lines = printer;   // through the base: its event() has the default tone
    OneShot o = prepare_one_shot(real.world, cfg, {}, false);

    CalibratePlan plan;
    plan.workloads = select_workloads(o.manifest, a->workloads);
    if (plan.workloads.empty()) throw usage_error("--workloads: selects no workload of " + o.manifest.name);
    plan.trials = a->trials;
    plan.planted = a->planted;
    plan.aa_refresh = cfg.aa_refresh;
    plan.sampling = full_sampling(cfg);
    plan.rule = keep_rule_from(cfg);
    plan.seed = cfg.seed ? static_cast<unsigned long long>(cfg.seed)
                         : static_cast<unsigned long long>(clock.now_seconds() * 1e6);

    CalibrateContext ctx{o.manifest.name, o.tunables, o.session->device(), plan.workloads, &plan, 0};
    lines.event(calibrate_title(ctx));
    long long keeps = 0;
    CalibrateObserver observer;
    observer.on_aa = [&](const AaMeasurement& aa) { lines.event(aa_line(aa, plan.workloads)); };
    observer.on_pads = [&](const std::vector<double>& pad_us) {
      for (size_t i = 0; i < pad_us.size() && i < plan.workloads.size(); ++i)
        lines.event(pad_line(pad_us[i], plan.workloads[i], plan.planted));
    };
    observer.on_trial = [&](const TrialRecord& t) {
      keeps += t.keep ? 1 : 0;
      lines.event(trial_line(t, plan.trials, keeps), t.keep ? Tone::Good : Tone::Plain);
    };

    const auto start = std::chrono::steady_clock::now();
    printer.status(fmt::format("calibrating: {} trials", plan.trials));
    const CalibrateOutcome out = run_calibration(*o.session, o.manifest, cfg, plan, observer);
    o.session->stop();
    printer.clear_status();
    ctx.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    // Printed even when the calibration stopped early: the trials done are data.
    const CalibrateSummary s = summarize_calibration(out);
    if (a->json) std::cout << calibrate_json(ctx, out, s).dump(2) << "\n";
    else std::cout << calibrate_text(ctx, out, s);
    std::cout.flush();

    if (out.status == StepStatus::Cancelled) throw Fatal(kExitInterrupted, "interrupted");
    if (out.status != StepStatus::Ok)
      throw Fatal(kExitInfrastructure,
                  fmt::format("stopped after {} of {} trials: {}", out.trials.size(), plan.trials, out.reason));
    return kExitOk;
  };
}

}  // namespace ar
