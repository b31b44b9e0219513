// `autoresearch space`: measures every feasible configuration of a package's
// tunables on its quick workloads and writes the measured space
// (docs/spaces.md) that `simulate` replays.
//
// A subcommand rather than a script around `bench`: one harness process for the
// whole space, every configuration built ahead on all cores before the first is
// timed (so no compile runs next to a measurement), the quick verification only
// (bench verifies every workload, 38 of them on sparse_mla), and configurations
// whose builds are byte-identical (a tunable the chosen code path ignores)
// timed once. Each build is timed as a screen is, interleaved with the default
// configuration, so times taken minutes apart stay comparable: a configuration's
// time on a workload is the reference's median over the whole measurement times
// its paired ratio to the reference.
#include <atomic>
#include <cmath>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "autoresearch/agents/measured_space.h"
#include "autoresearch/agents/tuner.h"
#include "autoresearch/loop/evaluation.h"
#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"
#include "autoresearch/util/hash.h"
#include "commands.h"
#include "one_shot.h"
#include "options.h"
#include "space_progress.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

struct SpaceArgs {
  ConfigFlags f;
  std::string out;
  std::vector<std::string> values;   // NAME=v1,v2,...: a declared subset
  std::string workloads = "quick";
  bool count_only = false;
};

constexpr const char* kReferenceSlot = "a";
constexpr const char* kConfigSlot = "cand";

// --values NAME=v1,v2: the tunable keeps only these values (in the manifest's
// order, so "neighbouring" keeps its meaning); the default must stay.
nlohmann::json restrict_values(Manifest& m, const std::vector<std::string>& specs) {
  nlohmann::json subset = nlohmann::json::object();
  for (const auto& spec : specs) {
    auto eq = spec.find('=');
    if (eq == std::string::npos) throw usage_error("--values: expected NAME=V1,V2,..., got '" + spec + "'");
    std::string name = spec.substr(0, eq);
    auto it = std::find_if(m.tunables.begin(), m.tunables.end(), [&](const Tunable& t) { return t.name == name; });
    if (it == m.tunables.end()) throw usage_error(fmt::format("--values: {} is not a tunable of {}", name, m.name));
    std::set<long long> keep;
    std::string list = spec.substr(eq + 1);
    size_t start = 0;
    while (start <= list.size()) {
      size_t end = list.find(',', start);
      std::string item = list.substr(start, end == std::string::npos ? std::string::npos : end - start);
      long long v = 0;
      try {
        size_t used = 0;
        v = std::stoll(item, &used);
        if (used != item.size()) throw std::invalid_argument(item);
      } catch (const std::exception&) {
        throw usage_error(fmt::format("--values {}: '{}' is not an integer", name, item));
      }
      if (std::find(it->values.begin(), it->values.end(), v) == it->values.end())
        throw usage_error(fmt::format("--values {}: {} is not an allowed value", name, v));
      keep.insert(v);
      if (end == std::string::npos) break;
      start = end + 1;
    }
    if (!keep.count(it->default_value))
      throw usage_error(fmt::format("--values {}: the subset must hold the default {} (a run starts there)", name,
                                    it->default_value));
    std::vector<long long> kept;
    for (long long v : it->values)
      if (keep.count(v)) kept.push_back(v);
    subset[name] = {{"values", kept}, {"declared", it->values}};
    it->values = kept;
  }
  return subset;
}

struct Config {
  Tunables tunables;
  BuildResult build;
  std::string artifact_hash;   // identical builds share one measurement
};

// A measurement the machine spoiled (a harness error, rounds dropped for a low
// clock) is taken again this many times before the configuration is left for
// the next run of the command.
constexpr int kMeasureAttempts = 3;

class SpaceMeasurement {
 public:
  SpaceMeasurement(OneShot& o, const RunConfig& cfg, Printer& printer, const std::atomic<bool>* stop,
                   std::vector<Workload> workloads)
      : o_(o), cfg_(cfg), printer_(printer), stop_(stop), workloads_(std::move(workloads)) {}

  // Builds go to `dir` (one folder per configuration), and a build finished
  // by an earlier run of the command (same sources, same options) is reused,
  // so a measurement split over several runs compiles each configuration once.
  void build_all(std::vector<Config*>& configs, int jobs, const fs::path& dir) {
    std::atomic<size_t> next{0}, done{0};
    auto work = [&] {
      for (size_t i; (i = next++) < configs.size();) {
        if (stop_ && stop_->load()) return;
        Config& c = *configs[i];
        const fs::path out = dir / sha256_hex(canonical(c.tunables)).substr(0, 16);
        const fs::path marker = out / "built";
        std::error_code ec;
        if (fs::exists(marker, ec) && fs::exists(read_file(marker), ec)) {
          c.build.ok = true;
          c.build.artifact = read_file(marker);
        } else {
          fs::remove_all(out, ec);
          c.build = o_.builder->build(o_.manifest.dir, c.tunables, out, stop_);
          if (c.build.ok) write_file_atomic(marker, c.build.artifact.string());
        }
        if (c.build.ok) c.artifact_hash = sha256_file(c.build.artifact);
        ++done;
      }
    };
    std::vector<std::thread> pool;
    for (int j = 0; j < jobs; ++j) pool.emplace_back(work);
    while (done < configs.size() && !(stop_ && stop_->load())) {
      printer_.status(fmt::format("space: built {} of {} configurations ({} at once)", done.load(), configs.size(), jobs));
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    for (auto& t : pool) t.join();
    if (stop_ && stop_->load()) throw Fatal(kExitInterrupted, "interrupted while building; run it again to continue");
  }

  // nullopt: the machine failed it kMeasureAttempts times (not the configuration's doing).
  std::optional<SpaceEntry> measure(const fs::path& artifact, unsigned long long seed) {
    for (int attempt = 0; attempt < kMeasureAttempts; ++attempt) {
      if (attempt > 0) {
        printer_.event(fmt::format("space: {}; measuring it again ({} of {})", last_error_, attempt + 1,
                                   kMeasureAttempts),
                       Tone::Warn);
        recover();
      }
      auto e = measure_once(artifact, seed + 104729ull * attempt);
      if (e) return e;
    }
    printer_.event(fmt::format("space: {}; left for the next run of the command", last_error_), Tone::Bad);
    return std::nullopt;
  }

  const std::vector<Workload>& workloads() const { return workloads_; }

 private:
  std::optional<SpaceEntry> measure_once(const fs::path& artifact, unsigned long long seed) {
    SpaceEntry e;
    auto loaded = o_.session->load(kConfigSlot, artifact);
    if (!loaded.ok()) {
      if (loaded.status != HarnessReply::Status::Error) recover();
      e.failure = Decision::BuildError;
      e.reason = "the harness rejects the artifact: " + loaded.message;
      return e;
    }
    auto v = verify_workloads(*o_.session, kConfigSlot, workloads_, o_.manifest, seed, cfg_);
    if (v.status != StepStatus::Ok) return failed(e, v.status, "verify: " + v.reason);
    auto r = measure_pair(*o_.session, kReferenceSlot, kConfigSlot, workloads_, o_.manifest, screen_sampling(cfg_),
                          seed ^ 0x5151, kConfigSlot, cfg_);
    e.gpu_seconds = r.gpu_seconds;
    if (r.status != StepStatus::Ok) return failed(e, r.status, "measure: " + r.reason);
    for (size_t w = 0; w < r.pairs.size(); ++w) {
      e.reference_us.push_back(summarize(r.pairs[w].incumbent_us).median);
      e.ratio.push_back(r.comparison.workloads[w].ratio);
      e.ci_low.push_back(r.comparison.workloads[w].ratio_ci_low);
      e.ci_high.push_back(r.comparison.workloads[w].ratio_ci_high);
    }
    return e;
  }

  std::optional<SpaceEntry> failed(SpaceEntry& e, StepStatus s, const std::string& reason) {
    if (s == StepStatus::Cancelled) throw Fatal(kExitInterrupted, "interrupted; run it again to continue");
    const Decision d = decision_for_failure(s, reason);
    if (d == Decision::Error) {   // the harness or the machine, not the configuration
      last_error_ = reason;
      return std::nullopt;
    }
    if (s != StepStatus::Wrong) recover();
    e.failure = d;
    e.reason = reason;
    return e;
  }

  void recover() {
    std::string err;
    if (!o_.session->recover(kConfigSlot, &err))
      throw Fatal(kExitInfrastructure, "the harness could not be restarted: " + err + "; run it again to continue");
  }

  OneShot& o_;
  const RunConfig& cfg_;
  Printer& printer_;
  const std::atomic<bool>* stop_;
  std::vector<Workload> workloads_;
  std::string last_error_;
};

std::string first_line(const std::string& text) {
  size_t start = text.find_first_not_of("\n");
  if (start == std::string::npos) return "";
  return text.substr(start, text.find('\n', start) - start);
}

// The command as given, for the file's header (flags in their declared order).
std::string command_text(const SpaceArgs& a, const RunConfig& cfg) {
  std::string s = "autoresearch space --kernel " + cfg.kernel;
  for (const auto& v : a.values) s += " --values " + v;
  RunConfig declared;
  declared.visit([&](const char* name, auto&, const char*) {
    auto it = a.f.options.find(name);
    if (std::string(name) == "kernel" || it == a.f.options.end() || it->second->count() == 0) return;
    for (const auto& r : it->second->results()) s += " " + it->second->get_name() + " " + r;
  });
  if (a.workloads != "quick") s += " --workloads " + a.workloads;
  return s + " -o " + a.out;
}

// One point of the file from what is known of its configuration; the time on
// each workload is the reference's median over the whole measurement times the
// configuration's paired ratio to it.
SpacePoint point_for(const Config& c, const SpaceEntry& e, const std::vector<double>& ref,
                     const std::vector<Workload>& workloads) {
  SpacePoint p;
  p.tunables = c.tunables;
  if (!e.build.empty()) p.detail["build"] = e.build.substr(0, 12);
  if (e.failure) {
    p.decision = *e.failure;
    p.reason = e.reason;
    return p;
  }
  double log_sum = 0;
  nlohmann::json per = nlohmann::json::object();
  for (size_t w = 0; w < e.ratio.size(); ++w) {
    double us = ref[w] / e.ratio[w];
    log_sum += std::log(us);
    per[workloads[w].name] = {{"us", us}, {"ratio_ci", {e.ci_low[w], e.ci_high[w]}}};
  }
  p.time_us = std::exp(log_sum / static_cast<double>(e.ratio.size()));
  p.detail["workloads"] = per;
  return p;
}

}  // namespace

CommandAction add_space_command(CLI::App& sub) {
  auto a = std::make_shared<SpaceArgs>();
  add_config_flags(sub, a->f, {"kernel", "gpu", "seed", "screen_min_samples", "screen_min_seconds",
                               "screen_max_seconds", "target_rel_ci", "cold", "build_jobs", "verify_timeout_s",
                               "bench_timeout_s"});
  sub.add_option("-o,--out", a->out, "the space file to write (JSON lines, docs/spaces.md)");
  sub.add_option("--workloads", a->workloads, "the workloads to measure on: quick, timed or all")
      ->capture_default_str();
  sub.add_option("--values", a->values,
                 "measure a declared subset: NAME=V1,V2,... keeps only these values of a tunable (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub.add_flag("--count", a->count_only, "print how many configurations the space holds, and measure nothing");
  sub.footer(
      "Every feasible configuration is built (--build-jobs at once), verified on the workloads and timed on them "
      "as a screen is (--screen-* options), interleaved with the default configuration. Builds that are "
      "byte-identical are timed once. Progress goes to OUT.partial as it is measured: the same command run again "
      "continues where it stopped. Exit codes: 0 written; 2 bad usage; 4 infrastructure (some configurations "
      "could not be measured: run it again); 130 interrupted (run it again to continue).");
  return [a] {
    Paths paths = discover_paths(fs::current_path());
    RunConfig cfg = layered_config(a->f, paths, nullptr);
    if (cfg.kernel.empty()) throw usage_error("--kernel: which package's space to measure");
    Manifest m = load_manifest(resolve_manifest(paths, cfg.kernel));
    nlohmann::json subset = restrict_values(m, a->values);
    SearchSpace space(m);
    if (space.size() > 1e6)
      throw usage_error(fmt::format("{} has {:.3g} configurations before its constraints: declare a subset with "
                                    "--values",
                                    m.name, space.size()));
    std::vector<Config> configs;
    for (uint64_t code : space.feasible_codes()) configs.push_back({space.decode(code), {}, {}});
    if (a->count_only) {
      std::cout << fmt::format("{}: {} feasible configurations of {:.0f}{}\n", m.name, configs.size(), space.size(),
                               subset.empty() ? "" : " (the declared subset)");
      return kExitOk;
    }
    if (a->out.empty()) throw usage_error("-o FILE: where to write the space");

    RealWorld real;
    TerminalPrinter& printer = real.printer;
    const double started = real.clock.now_seconds();
    std::vector<std::string> sets;   // the reference: the declared defaults
    for (const auto& t : m.tunables) sets.push_back(fmt::format("{}={}", t.name, t.default_value));
    OneShot o = prepare_one_shot(real.world, cfg, sets, false);
    o.manifest.tunables = m.tunables;   // the subset, for the header
    std::vector<Workload> workloads = select_workloads(o.manifest, a->workloads);
    if (workloads.empty()) throw usage_error(fmt::format("{} declares no {} workloads", m.name, a->workloads));
    nlohmann::json names = nlohmann::json::array();
    for (const auto& w : workloads) names.push_back(w.name);
    nlohmann::json sampling = {{"screen_min_samples", cfg.screen_min_samples},
                               {"screen_min_seconds", cfg.screen_min_seconds},
                               {"screen_max_seconds", cfg.screen_max_seconds},
                               {"target_rel_ci", cfg.target_rel_ci},
                               {"cold", cfg.cold}};
    // The sources are part of what is measured: a progress made on other ones is refused.
    nlohmann::json sources = nlohmann::json::object();
    for (const auto& e : o.manifest.editable) {
      std::error_code ec;
      fs::path f = o.manifest.dir / e;
      if (fs::is_regular_file(f, ec)) sources[e] = sha256_file(f).substr(0, 16);
    }
    const nlohmann::json progress_identity = {{"space", space_header(o.manifest)}, {"workloads", names},
                                              {"sampling", sampling}, {"sources", sources}};
    SpaceProgress progress(a->out + ".partial", progress_identity);
    SpaceMeasurement sm(o, cfg, printer, real.world.stop, workloads);
    auto reference = verify_workloads(*o.session, kReferenceSlot, workloads, o.manifest, 1, cfg);
    if (reference.status != StepStatus::Ok)
      throw usage_error("the default configuration fails on the workloads: " + reference.reason);

    // Only what the progress does not hold yet is built and measured.
    std::vector<Config*> todo;
    for (Config& c : configs)
      if (!progress.find(c.tunables)) todo.push_back(&c);
    if (todo.size() < configs.size())
      printer.event(fmt::format("space: continuing {}: {} of {} configurations known, {} to go",
                                progress.file().string(), configs.size() - todo.size(), configs.size(), todo.size()),
                    Tone::Plain);
    int cores = static_cast<int>(std::thread::hardware_concurrency());
    int jobs = cfg.build_jobs > 0 ? cfg.build_jobs : std::max(1, cores - (m.backend == Backend::Cuda ? 2 : 0));
    const fs::path build_dir =
        o.paths.state() / "space" / (m.name + "-" + sha256_hex(progress_identity.dump()).substr(0, 12));
    sm.build_all(todo, jobs, build_dir);
    const double built = real.clock.now_seconds();

    // One measurement per distinct build, in a shuffled order so slow drift of
    // the machine does not line up with any tunable.
    std::map<std::string, std::vector<Tunables>> by_build;
    std::map<std::string, fs::path> artifact;
    for (Config* c : todo) {
      if (c->build.ok) {
        by_build[c->artifact_hash].push_back(c->tunables);
        artifact[c->artifact_hash] = c->build.artifact;
        continue;
      }
      SpaceEntry e;
      e.failure = c->build.timed_out ? Decision::Timeout : Decision::BuildError;
      e.reason = "does not build: " + first_line(c->build.errors);
      progress.add({c->tunables}, e);
    }
    std::vector<std::string> order;
    for (const auto& [hash, members] : by_build) order.push_back(hash);
    unsigned long long seed = cfg.seed ? static_cast<unsigned long long>(cfg.seed) : 1;
    std::mt19937_64 rng(seed);
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
    size_t unmeasured = 0;
    for (size_t k = 0; k < order.size(); ++k) {
      if (real.world.stop->load()) throw Fatal(kExitInterrupted, "interrupted; run it again to continue");
      double elapsed = real.clock.now_seconds() - built;
      printer.status(fmt::format("space: measuring build {} of {}{}", k + 1, order.size(),
                                 k > 0 ? fmt::format(", about {:.0f} s left", elapsed / k * (order.size() - k)) : ""));
      auto e = sm.measure(artifact[order[k]], seed + 7919 * k);
      if (!e) {
        unmeasured += by_build[order[k]].size();
        continue;
      }
      e->build = order[k];
      progress.add(by_build[order[k]], *e);
    }
    o.session->stop();
    printer.clear_status();
    if (unmeasured > 0)
      throw Fatal(kExitInfrastructure,
                  fmt::format("{} configurations could not be measured (the machine failed them {} times each); "
                              "the rest is kept in {}: run the same command again to measure them",
                              unmeasured, kMeasureAttempts, progress.file().string()));

    std::vector<double> ref;
    for (auto& medians : progress.reference_medians(workloads.size())) ref.push_back(summarize(medians).median);
    std::vector<SpacePoint> points;
    double gpu_seconds = 0;
    for (const Config& c : configs) {
      const SpaceEntry& e = *progress.find(c.tunables);
      points.push_back(point_for(c, e, ref, workloads));
    }
    for (const auto& [hash, members] : by_build)
      if (const SpaceEntry* e = progress.find(members.front())) gpu_seconds += e->gpu_seconds;

    nlohmann::json header = space_header(o.manifest);
    nlohmann::json ref_json = nlohmann::json::object();
    for (size_t w = 0; w < ref.size(); ++w) ref_json[workloads[w].name] = ref[w];
    header["device"] = o.session->device().value("name", "?");
    header["date"] = real.clock.now_iso8601();
    header["command"] = command_text(*a, cfg);
    header["workloads"] = ref_json;   // the reference's median µs per workload
    header["sampling"] = sampling;
    if (!subset.empty()) header["subset"] = subset;
    header["configurations"] = configs.size();
    std::set<std::string> builds;
    for (const Config& c : configs) builds.insert(progress.find(c.tunables)->build);
    header["distinct_builds"] = builds.size();
    header["seconds"] = {{"build", built - started}, {"measure", real.clock.now_seconds() - built},
                         {"sampling", gpu_seconds}};
    if (todo.size() < configs.size()) header["continued"] = true;   // the seconds are the last session's
    write_file_atomic(a->out, space_file_text(header, points));
    // What simulate will read, read back: a file that does not validate is a bug here.
    MeasuredSpace check = load_measured_space(a->out);
    std::error_code ec;
    fs::remove(progress.file(), ec);
    fs::remove_all(build_dir, ec);
    // A continued measurement's earlier calls are not timed here: say whose seconds these are.
    const double secs = real.clock.now_seconds() - started;
    const std::string took = todo.size() < configs.size()
                                 ? fmt::format("the last {:.0f} s of it (it continued an earlier call)", secs)
                                 : fmt::format("in {:.0f} s", secs);
    fmt::print(stderr,
               "{}: {} configurations ({} distinct builds, {} failed) measured, {} on {}; best {:.1f} µs, "
               "the default {:.1f} µs; {} within 5% of the best; written to {}\n",
               m.name, configs.size(), builds.size(), check.failures(), took,
               header["device"].get<std::string>(), check.best_time_us(), *check.find(check.start())->time_us,
               check.within(0.05), a->out);
    return kExitOk;
  };
}

}  // namespace ar
