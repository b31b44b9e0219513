#include "bench_against.h"

#include <algorithm>
#include <iostream>
#include <set>

#include <fmt/format.h>

#include "autoresearch/decide/keep_rule.h"
#include "autoresearch/loop/evaluation.h"
#include "autoresearch/loop/source_check.h"
#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"

namespace ar {
namespace {

namespace fs = std::filesystem;

// Package-relative paths of the regular files under `dir`.
std::set<std::string> package_files(const fs::path& dir) {
  std::set<std::string> out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_regular_file()) out.insert(fs::relative(it->path(), dir).generic_string());
  }
  return out;
}

bool same_bytes(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::file_size(a, ec) != fs::file_size(b, ec) || ec) return false;
  return read_file(a) == read_file(b);
}

// Files present in one package and not the other, or with other bytes; the editable files and the tunables
// file of either are what a version may change. A results/ folder (records, not inputs) is left out.
std::vector<std::string> differing_files(const Manifest& current, const Manifest& other) {
  std::set<std::string> allowed = {current.tunables_file, other.tunables_file};
  allowed.insert(current.editable.begin(), current.editable.end());
  allowed.insert(other.editable.begin(), other.editable.end());
  auto mine = package_files(current.dir), theirs = package_files(other.dir);
  std::set<std::string> all = mine;
  all.insert(theirs.begin(), theirs.end());
  std::vector<std::string> out;
  for (const auto& f : all) {
    if (allowed.count(f) || f.rfind("results/", 0) == 0) continue;
    if (!mine.count(f) || !theirs.count(f) || !same_bytes(current.dir / f, other.dir / f)) out.push_back(f);
  }
  return out;
}

// Writes the package folder `prefix` (repo-relative) as it is in `commit` into `dest`, its results/
// folder (records of earlier measurements, often megabytes, never an input of a build) aside.
void export_package(Git& git, const std::string& commit, const std::string& prefix, const fs::path& dest) {
  fs::remove_all(dest);
  for (const auto& file : git.files_at(commit, prefix)) {
    const fs::path rel = fs::path(file).lexically_relative(prefix);
    if (rel.generic_string().rfind("results/", 0) == 0) continue;
    auto bytes = git.show(commit, file);
    if (!bytes) continue;   // a submodule or a link: not a file of the package
    write_file_atomic(dest / rel, *bytes);
  }
}

ExitCode exit_for(StepStatus s) {
  return s == StepStatus::Wrong || s == StepStatus::Crash || s == StepStatus::Timeout || s == StepStatus::Guard
             ? kExitVerifyFailed
             : kExitInfrastructure;
}

}  // namespace

AgainstVersion load_against(Git& git, const Paths& paths, const Manifest& current, const std::string& ref) {
  AgainstVersion v;
  v.label = ref;
  std::error_code ec;
  if (fs::is_directory(ref, ec)) {
    v.dir = fs::canonical(ref);
    if (!fs::exists(v.dir / "manifest.json"))
      throw usage_error(fmt::format("--against: the folder {} holds no manifest.json", v.dir.string()));
  } else {
    auto sha = git.resolve(ref);
    if (!sha)
      throw usage_error(fmt::format("--against: '{}' is neither a folder nor a revision of {}", ref,
                                    paths.repo.string()));
    auto rel = fs::relative(current.dir, paths.repo).generic_string();
    if (rel.empty() || rel == "." || rel.rfind("..", 0) == 0)
      throw usage_error(fmt::format("--against {}: the package {} is not inside the repository {}; name a folder "
                                    "holding the version to compare against instead",
                                    ref, current.dir.string(), paths.repo.string()));
    v.commit = *sha;
    v.dir = paths.state() / "against" / sha->substr(0, 12) / current.dir.filename();
    export_package(git, *sha, rel, v.dir);
    if (!fs::exists(v.dir / "manifest.json"))
      throw usage_error(fmt::format("--against {}: commit {} has no package at {}", ref, sha->substr(0, 12), rel));
  }
  v.manifest = load_manifest(v.dir / "manifest.json");
  if (v.manifest.backend != current.backend)
    throw usage_error(fmt::format("--against {}: its package is for the {} backend, this one for {}", ref,
                                  backend_name(v.manifest.backend), backend_name(current.backend)));
  v.tunables = read_tunables_file(v.manifest, v.dir / v.manifest.tunables_file);
  v.differs = differing_files(current, v.manifest);
  return v;
}

std::string against_summary(const Comparison& c, const std::string& ref, double margin) {
  std::string range = fmt::format("{:.3f}x (95% CI {:.3f}-{:.3f}, p = {:.2g})", c.speedup, c.ci_low, c.ci_high,
                                  c.p_value);
  std::string line;
  if (c.ci_low > 1)
    line = fmt::format("faster than {}: {}", ref, range);
  else if (c.ci_high < 1)
    line = fmt::format("slower than {}: {}", ref, range);
  else
    line = fmt::format("no significant difference from {}: {}", ref, range);
  line += fmt::format(", the geomean over {} workloads", c.workloads.size());
  if (const WorkloadComparison* w = significant_regression(c, margin))
    line += fmt::format("; slower on {}: {:.3f}x (95% CI {:.3f}-{:.3f})", w->workload, w->ratio, w->ratio_ci_low,
                        w->ratio_ci_high);
  return line;
}

ExitCode run_bench_against(World& world, OneShot& o, const RunConfig& cfg, const BenchAgainstArgs& args,
                           unsigned long long seed) {
  AgainstVersion ref = load_against(*world.open_git(o.paths.repo), o.paths, o.manifest, args.ref);
  const std::string who = ref.commit.empty() ? args.ref : fmt::format("{} ({})", args.ref, ref.commit.substr(0, 12));
  nlohmann::json out = {{"kernel", o.manifest.name}, {"tunables", o.tunables}, {"device", o.session->device()},
                        {"guard", {{"pass", true}, {"scope_checked", o.scope_checked}}}};
  out["against"] = {{"ref", args.ref},
                    {"commit", ref.commit.empty() ? nlohmann::json(nullptr) : nlohmann::json(ref.commit)},
                    {"dir", ref.dir.string()},
                    {"tunables", ref.tunables},
                    {"differs", ref.differs}};
  auto fail = [&](ExitCode code, const std::string& message) {
    world.printer->clear_status();
    if (args.json) std::cout << out.dump(2) << "\n";
    fmt::print(stderr, "{}\n", message);
    return code;
  };

  // The version compared against faces the guard the current source faced: a baseline that cheats would
  // make any edit look slow.
  Builder builder(ref.manifest, o.paths, *o.toolchain, *world.runner);
  world.printer->status("checking " + who + " against the guard (source scan)");
  SourceCheck g = check_package_source(builder, ref.manifest, ref.dir, "", {}, ref.tunables, world.stop);
  if (g.status == SourceCheck::Status::Cancelled) throw Fatal(kExitInterrupted, "interrupted");
  if (g.status == SourceCheck::Status::DoesNotPreprocess) throw usage_error(who + " does not build:\n" + g.finding);
  if (g.status == SourceCheck::Status::Finding) {
    out["against"]["guard"] = {{"pass", false}, {"finding", g.finding}};
    return fail(kExitVerifyFailed, "the version to compare against, " + who + ", fails the guard: " + g.summary());
  }
  world.printer->status("building " + who);
  BuildResult b = builder.build(ref.dir, ref.tunables, o.paths.state() / "scratch" / (o.manifest.name + "-against"),
                                world.stop);
  if (b.cancelled) throw Fatal(kExitInterrupted, "interrupted");
  if (auto finding = compiled_code_finding(b, o.manifest.backend)) {
    out["against"]["guard"] = {{"pass", false}, {"finding", *finding}};
    return fail(kExitVerifyFailed, "the version to compare against, " + who + ", fails the guard: " + *finding);
  }
  if (!b.ok) throw usage_error(who + " does not build:\n" + b.errors);
  out["against"]["guard"] = {{"pass", true}};
  auto loaded = o.session->load("a", b.artifact);
  if (!loaded.ok()) throw usage_error("the harness cannot load " + who + ": " + loaded.message);

  // Both versions on every workload of the current package, with its harness and its oracle.
  for (const auto& [slot, name] : {std::pair<std::string, std::string>{"a", who}, {"b", "this source"}}) {
    world.printer->status(fmt::format("verifying {} on {} workloads", name, o.manifest.workloads.size()));
    auto v = verify_workloads(*o.session, slot, o.manifest.workloads, o.manifest, seed, cfg);
    if (v.status == StepStatus::Cancelled) throw Fatal(kExitInterrupted, "interrupted");
    (slot == "a" ? out["against"] : out)["verify"] = {{"pass", v.status == StepStatus::Ok}, {"workloads", v.workloads}};
    if (v.status != StepStatus::Ok)
      return fail(exit_for(v.status), fmt::format("{} fails verification: {}", name, v.reason));
  }

  auto timed = select_workloads(o.manifest, args.workloads);
  world.printer->status(fmt::format("timing {} workloads, this source interleaved with {}", timed.size(), who));
  auto r = measure_pair(*o.session, "a", "b", timed, o.manifest, full_sampling(cfg), seed, "b", cfg);
  if (r.status == StepStatus::Cancelled) throw Fatal(kExitInterrupted, "interrupted");
  if (r.status != StepStatus::Ok) {
    world.printer->clear_status();
    fmt::print(stderr, "measurement failed: {}\n", r.reason);
    return r.status == StepStatus::Wrong || r.status == StepStatus::Guard ? kExitVerifyFailed : kExitInfrastructure;
  }
  o.session->stop();
  world.printer->clear_status();
  auto rows = table_rows(o.manifest, timed, r, true);
  std::string summary = against_summary(r.comparison, args.ref, cfg.regression_margin);
  out["bench"] = {{"workloads", bench_rows_json(rows, o.roofline)},
                  {"comparison", to_json(r.comparison)},
                  {"summary", summary},
                  {"gpu_seconds", r.gpu_seconds},
                  {"roofline", {{"peak_flops", o.roofline.peak_flops},
                                {"peak_bytes_per_s", o.roofline.peak_bytes_per_s},
                                {"source", o.roofline.source}}},
                  {"extras", r.extras}};
  if (args.json) {
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::string t;
  for (const auto& [k, val] : o.tunables) t += fmt::format(" {}={}", k, val);
  fmt::print(stderr, "{}\n", o.guard_summary());
  if (!ref.differs.empty())
    fmt::print(stderr, "note: {} differs from this package outside its editable files ({}); both are judged by this "
               "package's harness, oracle and workloads\n", who, fmt::join(ref.differs, ", "));
  std::string rt;
  for (const auto& [k, val] : ref.tunables) rt += fmt::format(" {}={}", k, val);
  fmt::print(stderr, "{}, with its own tunables:{}\n", who, rt);
  fmt::print(stderr, "{}", render_bench_table(rows, o.roofline,
                                              fmt::format("{} on {}, this source against {} —{}", o.manifest.name,
                                                          o.session->device().value("name", "?"), who, t)));
  fmt::print(stderr, "both verified on {} workloads; {}\n", o.manifest.workloads.size(), summary);
  fmt::print(stderr, "(one interleaved measurement: a run keeps a change only above its A/A noise bar and the "
             "min-gain, confirmed by a second measurement)\n");
  return kExitOk;
}

}  // namespace ar
