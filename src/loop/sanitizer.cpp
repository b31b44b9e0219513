// compute-sanitizer (memcheck, racecheck) on every kept CUDA candidate, on the
// smallest workload, in a fresh harness process: out-of-bounds reads and
// shared-memory races can pass a numeric check by luck, and a kept commit must
// not carry them.
#include <future>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "autoresearch/util/subprocess.h"
#include "steps.h"

namespace ar {

namespace {

const Workload& smallest_workload(const Manifest& m) {
  const Workload* best = &m.workloads.front();
  double best_bytes = 1e300;
  for (const auto& w : m.workloads) {
    double b = workload_bytes(m, w).value_or(1e299);
    if (b < best_bytes) {
      best_bytes = b;
      best = &w;
    }
  }
  return *best;
}

std::string sanitizer_path() {
  auto p = find_program("compute-sanitizer");
  if (!p.empty()) return p;
  if (std::filesystem::exists("/usr/local/cuda/bin/compute-sanitizer")) return "/usr/local/cuda/bin/compute-sanitizer";
  return "";
}

}  // namespace

std::optional<std::string> sanitizer_finding(const std::string& output, int exit_code) {
  // "========= ERROR SUMMARY: 3 errors" (memcheck) or
  // "========= RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)".
  static const std::regex summary(R"((ERROR SUMMARY: (\d+) error)|(\((\d+) errors?, \d+ warnings?\)))");
  long long errors = 0;
  bool seen = false;
  for (auto it = std::sregex_iterator(output.begin(), output.end(), summary); it != std::sregex_iterator(); ++it) {
    seen = true;
    errors += std::stoll((*it)[2].matched ? (*it)[2].str() : (*it)[4].str());
  }
  if (!seen && exit_code != 99) return std::nullopt;
  if (errors == 0 && exit_code != 99) return std::nullopt;
  // The first reported problem, not the banner.
  std::istringstream in(output);
  std::string line, excerpt;
  while (std::getline(in, line)) {
    if (line.rfind("========= ", 0) != 0 || line.find("COMPUTE-SANITIZER") != std::string::npos) continue;
    excerpt += line.substr(10) + "\n";
    if (excerpt.size() > 500) break;
  }
  return fmt::format("{} error(s): {}", errors, excerpt.empty() ? std::string("(exit status 99)") : excerpt);
}

std::optional<std::string> run_sanitizers(RunContext& ctx, const std::filesystem::path& artifact, std::string* note,
                                          int gpu, const std::atomic<bool>* cancel) {
  if (ctx.manifest.backend != Backend::Cuda) {
    *note = "not applicable to CPU packages";
    return std::nullopt;
  }
  std::string tool = sanitizer_path();
  if (tool.empty()) {
    *note = "compute-sanitizer not found; skipped";
    return std::nullopt;
  }
  const Workload& w = smallest_workload(ctx.manifest);
  nlohmann::json load = {{"cmd", "load"}, {"slot", "cand"}, {"artifact", artifact.string()}};
  // The candidate on every input distribution, and nothing else: the tools
  // instrument every kernel the process launches, and the reference, the
  // generators and the fingerprints of a verify were most of their time.
  nlohmann::json exercise = {{"cmd", "exercise"}, {"slot", "cand"}, {"workload", workload_request(w)},
                             {"seed", ctx.seed ^ 0x5a17}};
  std::string script = load.dump() + "\n" + exercise.dump() + "\n" + R"({"cmd":"quit"})" + "\n";
  // The two tools run at once, each in its own harness process: neither is
  // timed, and racecheck alone takes as long as memcheck.
  const std::vector<std::string> tools = {"memcheck", "racecheck"};
  std::vector<std::future<ProcessResult>> runs;
  for (const auto& t : tools) {
    ProcessSpec spec;
    // The harness probes for optional entry points (ar_stage2, ...), which the
    // sanitizer would report as API errors; only memory and race errors count.
    spec.argv = {tool, "--tool", t, "--report-api-errors", "no", "--error-exitcode", "99", ctx.harness_exe.string(), "--gpu",
                 std::to_string(gpu >= 0 ? gpu : ctx.cfg.gpu)};
    spec.stdin_data = script;
    spec.timeout = std::chrono::seconds(600);
    spec.cancel = cancel ? cancel : ctx.world.stop;
    runs.push_back(std::async(std::launch::async, [&ctx, spec] { return ctx.world.runner->run(spec); }));
  }
  std::vector<ProcessResult> results;
  for (auto& r : runs) results.push_back(r.get());
  // A finding counts whatever the other tool did; a tool stopped by a signal
  // or its timeout says nothing against the candidate.
  for (size_t i = 0; i < tools.size(); ++i) {
    const auto& r = results[i];
    if (r.cancelled || r.timed_out) continue;
    // The harness prints protocol replies on stdout; the sanitizer reports on stdout too.
    if (auto finding = sanitizer_finding(r.out + "\n" + r.err, r.exit_code))
      return fmt::format("{} on {}: {}", tools[i], w.name, *finding);
  }
  std::string done;
  for (size_t i = 0; i < tools.size(); ++i) {
    if (results[i].cancelled) {
      *note = "interrupted";
      return std::nullopt;
    }
    done += tools[i] + (results[i].timed_out ? " timed out (not counted against the candidate); " : " clean; ");
  }
  *note = done + "on " + w.name;
  return std::nullopt;
}

}  // namespace ar
