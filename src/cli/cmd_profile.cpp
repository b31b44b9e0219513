// `autoresearch profile`: the hardware-counter profile a text agent is given,
// on its own: ncu (--clock-control none) over the protected harness verifying
// the current source once on the smallest timed workload, or on --workload.
#include <iostream>

#include <fmt/format.h>

#include "autoresearch/loop/profile.h"
#include "autoresearch/util/errors.h"
#include "commands.h"
#include "one_shot.h"
#include "options.h"

namespace ar {

struct ProfileArgs {
  ConfigFlags f;
  bool json = false;
  std::vector<std::string> sets;
  std::string workload;
};

CommandAction add_profile_command(CLI::App& sub) {
  auto a = std::make_shared<ProfileArgs>();
  add_config_flags(sub, a->f, {"kernel", "gpu"});
  sub.add_flag("--json", a->json, "the parsed metrics as JSON on stdout");
  sub.add_option("--set", a->sets, "override a tunable, NAME=VALUE (repeatable)");
  sub.add_option("--workload", a->workload, "the workload to profile (default: the smallest timed one, as agents get)");
  sub.footer("Exit codes: 0 profiled; 4 ncu missing or failing, or no GPU; 2 bad usage.");
  return [a] {
    Paths paths = discover_paths(std::filesystem::current_path());
    RunConfig cfg = layered_config(a->f, paths, nullptr);
    RealWorld real;
    OneShot o = prepare_one_shot(real.world, cfg, a->sets, false);
    if (!a->workload.empty() && !o.manifest.find_workload(a->workload))
      throw usage_error(fmt::format("--workload {}: {} declares no such workload", a->workload, o.manifest.name));
    o.session->stop();   // ncu starts its own harness; the card is not shared while it counts
    ProfileRequest rq;
    rq.manifest = &o.manifest;
    rq.harness_exe = o.harness_exe;
    rq.artifact = o.build.artifact;
    rq.work_dir = o.paths.state() / "scratch" / (o.manifest.name + "-profile");
    rq.gpu = cfg.gpu;
    rq.workload = a->workload;
    rq.cancel = real.world.stop;
    real.printer.status("profiling " + o.manifest.name + " with ncu");
    std::string why;
    auto p = profile_kernel(real.runner, rq, &why);
    real.printer.clear_status();
    if (!p) throw Fatal(kExitInfrastructure, "no profile: " + why);
    if (a->json) std::cout << nlohmann::json{{"workload", p->workload}, {"kernels", p->kernels}}.dump(2) << "\n";
    else std::cout << p->text;
    return kExitOk;
  };
}

}  // namespace ar
