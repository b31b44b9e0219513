// `autoresearch init NAME --backend cpu|cuda`: scaffold a kernel package in
// kernels/NAME of the current repository from the shipped templates.
#include <fmt/format.h>

#include "autoresearch/core/package_init.h"
#include "autoresearch/util/errors.h"
#include "commands.h"

namespace ar {

struct InitArgs {
  std::string name;
  std::string backend = "cuda";
};

CommandAction add_init_command(CLI::App& sub) {
  auto a = std::make_shared<InitArgs>();
  sub.add_option("name", a->name, "the package name: a letter, then letters, digits or '_' (kernels/NAME)")
      ->required();
  sub.add_option("--backend", a->backend, "cuda (a cubin kernel, needs nvcc) or cpu (a shared object, runs anywhere)")
      ->check(CLI::IsMember({"cuda", "cpu"}))
      ->capture_default_str();
  sub.footer(
      "Writes kernels/NAME/ (manifest.json, the kernel with one tunable, tunables.json, params.h, the\n"
      "problem with its reference and comparison, README.md) from <home>/templates/<backend>/. As\n"
      "generated it passes `verify`. Refuses an invalid name or an existing kernels/NAME.\n"
      "The package format: docs/packages.md. Exit codes: 0 written; 2 bad usage (nothing written).");
  return [a] {
    Paths paths = discover_paths(std::filesystem::current_path());
    Backend backend = a->backend == "cpu" ? Backend::Cpu : Backend::Cuda;
    InitResult r = init_package(paths, a->name, backend);
    fmt::print(stderr, "created {} ({} package):\n", r.dir.string(), a->backend);
    for (const auto& f : r.files) fmt::print(stderr, "  {}\n", f);
    fmt::print(stderr,
               "next:\n"
               "  git add kernels/{0} && git commit -m \"{0}: new package\"\n"
               "  autoresearch verify --kernel {0} --dry-run    # the manifest against the problem, no device\n"
               "  autoresearch verify --kernel {0}              # the kernel on every workload\n"
               "  autoresearch run --kernel {0} --goal 1.5x\n",
               a->name);
    return kExitOk;
  };
}

}  // namespace ar
