#include "one_shot.h"

#include <algorithm>

#include <fmt/format.h>

#include "autoresearch/guard/guard.h"
#include "autoresearch/loop/evaluation.h"
#include "autoresearch/util/errors.h"
#include "environment_errors.h"

namespace ar {

Tunables apply_sets(const Manifest& m, Tunables t, const std::vector<std::string>& sets) {
  for (const auto& s : sets) {
    auto eq = s.find('=');
    if (eq == std::string::npos) throw usage_error("--set: expected NAME=VALUE, got '" + s + "'");
    std::string name = s.substr(0, eq);
    const Tunable* tu = m.find_tunable(name);
    if (!tu) throw usage_error(fmt::format("--set: {} is not a tunable of {}", name, m.name));
    long long v = 0;
    try {
      v = std::stoll(s.substr(eq + 1));
    } catch (const std::exception&) {
      throw usage_error("--set: " + s + ": the value is not an integer");
    }
    if (std::find(tu->values.begin(), tu->values.end(), v) == tu->values.end())
      throw usage_error(fmt::format("--set: {}={} is not an allowed value", name, v));
    t[name] = v;
  }
  std::string why;
  if (!satisfies_constraints(m, t, &why)) throw usage_error("the tunables break a constraint: " + why);
  return t;
}

std::optional<std::string> compiled_code_finding(const BuildResult& b, Backend backend) {
  if (!b.ok && b.ptx.empty()) return std::nullopt;
  CompiledCode code;
  if (b.ok) code.binary = b.artifact;
  code.ptx = b.ptx;
  code.disassembly = b.disassembly;
  auto compiled = scan_compiled_code(code, backend);
  if (compiled.pass) return std::nullopt;
  return compiled.reason();
}

std::string OneShot::guard_summary() const {
  if (!guard.pass()) return guard.summary();
  std::string scans = scope_checked ? "scope, source and compiled-code scans passed"
                                    : "source and compiled-code scans passed (scope not checked: the package is "
                                      "outside this repository)";
  return "guard: " + scans;
}

// The scope check a candidate faces: files changed against HEAD under the
// package must be editable ones.
static SourceCheck check_guard(World& world, OneShot& o, const std::atomic<bool>* stop) {
  auto rel = std::filesystem::relative(o.manifest.dir, o.paths.repo);
  std::string prefix;
  std::vector<std::string> changed;
  if (!rel.empty() && rel.string().rfind("..", 0) != 0) {
    prefix = rel.generic_string();
    changed = world.open_git(o.paths.repo)->dirty_paths(prefix);
    o.scope_checked = true;
  }
  return check_package_source(*o.builder, o.manifest, o.manifest.dir, prefix, changed, o.tunables, stop);
}

OneShot prepare_one_shot(World& world, const RunConfig& cfg, const std::vector<std::string>& sets, bool guard) {
  OneShot o;
  o.paths = discover_paths(std::filesystem::current_path());
  exclude_state_dir(o.paths);   // the builds (and bench --against's export) go under it: git status stays clean
  o.manifest = load_manifest(resolve_manifest(o.paths, cfg.kernel));
  o.tunables = apply_sets(o.manifest, read_tunables_file(o.manifest, o.manifest.dir / o.manifest.tunables_file), sets);
  // Before a minute of nvcc for a harness that could not start.
  if (o.manifest.backend == Backend::Cuda && !cuda_driver_present()) throw Fatal(kExitInfrastructure, kNoDriverMessage);
  std::string why;
  auto tc = world.find_toolchain(o.manifest.backend, &why);
  if (!tc) throw Fatal(kExitInfrastructure, why);
  o.toolchain = tc;
  o.builder = std::make_unique<Builder>(o.manifest, o.paths, *tc, *world.runner);
  if (guard) {
    world.printer->status("checking " + o.manifest.name + " against the guard (scope, source scan)");
    o.guard = check_guard(world, o, world.stop);
    if (o.guard.status == SourceCheck::Status::Cancelled) throw Fatal(kExitInterrupted, "interrupted");
    if (o.guard.status == SourceCheck::Status::DoesNotPreprocess)
      throw usage_error(o.manifest.name + " does not build:\n" + o.guard.finding);
    if (o.guard.status == SourceCheck::Status::Finding) return o;
  }
  std::string holder;
  std::string device = o.manifest.backend == Backend::Cuda ? fmt::format("gpu{}", cfg.gpu) : "cpu";
  o.device_lock = FileLock::try_acquire(o.paths.device_lock(device),
                                        "autoresearch bench/verify", &holder);
  if (!o.device_lock)
    throw usage_error(fmt::format("{} is being measured by another autoresearch process ({})", device, holder));
  world.printer->status("building the harness for " + o.manifest.name);
  auto exe = world.build_harness(o.manifest, o.paths, *tc);
  o.harness_exe = exe;
  world.printer->status("building " + o.manifest.name);
  o.build = o.builder->build(o.manifest.dir, o.tunables, o.paths.state() / "scratch" / o.manifest.name, world.stop);
  if (o.build.cancelled) throw Fatal(kExitInterrupted, "interrupted");
  // What was built faces the scan a run's candidates face, whatever the source spelled.
  if (guard) {
    if (auto finding = compiled_code_finding(o.build, o.manifest.backend)) {
      o.guard.status = SourceCheck::Status::Finding;
      o.guard.finding = *finding;
      return o;
    }
  }
  if (!o.build.ok) throw usage_error(o.manifest.name + " does not build:\n" + o.build.errors);
  o.harness = world.open_harness(exe, cfg.gpu);
  o.session = std::make_unique<HarnessSession>(*o.harness);
  o.session->start();
  o.roofline = roofline_for(o.paths.home, o.session->device());
  for (const char* slot : {"a", "b"}) {
    auto r = o.session->load(slot, o.build.artifact);
    if (!r.ok()) throw usage_error("the harness cannot load the kernel: " + r.message);
  }
  return o;
}

std::vector<Workload> select_workloads(const Manifest& m, const std::string& which) {
  if (which == "all" || which.empty()) return m.workloads;
  std::vector<Workload> out;
  if (which == "quick" || which == "timed") {
    for (const auto& w : m.workloads)
      if (which == "quick" ? w.quick : w.timed) out.push_back(w);
    return out;
  }
  size_t start = 0;
  while (start <= which.size()) {
    size_t end = which.find(',', start);
    std::string name = which.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const Workload* w = m.find_workload(name);
    if (!w) throw usage_error(fmt::format("--workloads: {} has no workload '{}'", m.name, name));
    out.push_back(*w);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace ar
