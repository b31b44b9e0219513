#include "verify_dry_run.h"

#include <iostream>
#include <random>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "autoresearch/build/problem_probe.h"
#include "autoresearch/loop/evaluation.h"
#include "autoresearch/util/errors.h"
#include "one_shot.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

// Hidden workloads drawn as a verify would draw them, and more: a size the
// problem rejects shows up without waiting for the night that draws it.
constexpr int kHiddenDraws = 16;

// The kernel with the tunables as they are, compiled for its target (a cubin
// needs nvcc, not a GPU), in a folder removed afterwards.
BuildResult compile_kernel(World& world, const Manifest& m, const Paths& paths, const Toolchain& tc,
                           const Tunables& t) {
  fs::path dir = fs::temp_directory_path() / fmt::format("autoresearch-dry-run-{}", std::random_device{}());
  fs::create_directories(dir);
  Builder builder(m, paths, tc, *world.runner);
  BuildResult r = builder.build(m.dir, t, dir, world.stop);
  std::error_code ec;
  fs::remove_all(dir, ec);
  return r;
}

}  // namespace

int verify_dry_run(World& world, const Paths& paths, const RunConfig& cfg, const std::vector<std::string>& sets,
                   bool json) {
  Manifest m = load_manifest(resolve_manifest(paths, cfg.kernel));   // every field's own checks
  Tunables tunables = apply_sets(m, read_tunables_file(m, m.dir / m.tunables_file), sets);
  std::string why;
  auto tc = world.find_toolchain(m.backend, &why);
  if (!tc)
    throw Fatal(kExitInfrastructure, fmt::format("{}: the dry run compiles the problem's host side and the kernel, "
                                                 "and found no {} compiler: {}", m.name, backend_name(m.backend), why));
  world.printer->status(fmt::format("compiling the problem of {} for the host", m.name));
  fs::path probe = build_probe(m, paths, *tc, *world.runner, world.stop);

  auto workloads = probe_workloads(m);
  if (!m.hidden.params.empty()) {
    unsigned long long seed = cfg.seed ? cfg.seed : std::random_device{}();
    for (const auto& h : draw_hidden_workloads(m, kHiddenDraws, seed))
      workloads.push_back({"hidden_workloads.params (drawn)", h.params});
  }
  ProbeReport report = run_probe(probe, workloads, *world.runner);
  DryRunFindings f = probe_findings(m, workloads, report);

  std::string shown;
  for (const auto& [k, v] : tunables) shown += fmt::format("{}{}={}", shown.empty() ? "" : " ", k, v);
  world.printer->status(fmt::format("compiling the kernel of {} ({})", m.name, shown));
  BuildResult build = compile_kernel(world, m, paths, *tc, tunables);
  world.printer->clear_status();
  if (!build.ok)
    f.errors.push_back(fmt::format("{}: kernel.source: {} does not compile with the tunables in {}:\n{}", m.file.string(),
                                   m.kernel_source, m.tunables_file, build.errors));
  f.notes.push_back("not checked without running the kernel: its results, its speed and the guards' runtime checks "
                    "(`verify` and `bench` do those)");

  const bool pass = f.errors.empty();
  if (json) {
    nlohmann::json w = nlohmann::json::array();
    for (size_t i = 0; i < workloads.size(); ++i) {
      nlohmann::json e = {{"where", workloads[i].where}, {"params", workloads[i].params},
                          {"accepted", report.workloads[i].ok}};
      if (report.workloads[i].ok) e["rotation_bytes"] = report.workloads[i].rotation_bytes;
      else e["error"] = report.workloads[i].error;
      w.push_back(e);
    }
    std::cout << nlohmann::json{{"kernel", m.name}, {"dry_run", true}, {"pass", pass}, {"errors", f.errors},
                                {"notes", f.notes}, {"outputs", report.outputs}, {"params", report.params},
                                {"workloads", w}, {"kernel_build", {{"ok", build.ok}, {"seconds", build.seconds}}}}
                     .dump(2)
              << "\n";
  }
  for (const auto& e : f.errors) fmt::print(stderr, "error: {}\n", e);
  for (const auto& n : f.notes) fmt::print(stderr, "note: {}\n", n);
  if (pass)
    fmt::print(stderr,
               "{}: dry run passed: outputs [{}] match the tolerances, params [{}] cover the workloads, the problem "
               "accepts all {} workloads tried (declared, hidden corners and draws), the kernel compiles\n",
               m.name, fmt::join(report.outputs, ", "), fmt::join(report.params, ", "), workloads.size());
  else
    fmt::print(stderr, "{}: dry run found {} problem{}\n", m.name, f.errors.size(), f.errors.size() == 1 ? "" : "s");
  return pass ? kExitOk : kExitUsage;
}

}  // namespace ar
