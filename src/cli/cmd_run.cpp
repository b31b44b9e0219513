#include <memory>

#include "autoresearch/loop/run_loop.h"
#include "autoresearch/util/errors.h"
#include "commands.h"
#include "options.h"
#include "real_world.h"

namespace ar {

CommandAction add_run_command(CLI::App& sub) {
  auto f = std::make_shared<ConfigFlags>();
  auto resume = std::make_shared<std::string>();
  sub.add_option("--resume", *resume, "continue the run with this id (as printed at its start; `autoresearch runs` lists them)");
  auto gpus = std::make_shared<std::string>();
  sub.add_option("--gpus", *gpus,
                 "measure on several GPUs of this host at once: a list (0,1,3) or all; one harness, lock and "
                 "A/A noise per GPU (--agent tune; excludes --gpu)");
  add_config_flags(sub, *f);
  sub.footer(
      "Exit codes: 0 goal reached; 3 stopped by a budget or the plateau rule; 4 infrastructure failure;\n"
      "2 bad usage or input; 1 internal error; 130 interrupted (resumable with --resume).");
  return [f, resume, gpus] {
    Paths paths = discover_paths(std::filesystem::current_path());
    RunRequest req;
    req.paths = paths;
    req.config = layered_config(*f, paths, &req.overrides);
    req.resume = *resume;
    req.gpus = *gpus;
    if (req.resume.empty() && req.config.kernel.empty())
      throw usage_error("--kernel is required (or --resume RUN to continue a run)");
    if (!req.resume.empty() && req.overrides.contains("kernel"))
      throw usage_error("--kernel cannot change on --resume (the run's kernel is fixed)");
    RealWorld real;
    int code = run_loop(real.world, req);
    real.printer.clear_status();
    return code;
  };
}

}  // namespace ar
