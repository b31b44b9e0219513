// compute-sanitizer (memcheck, racecheck) on every kept CUDA candidate, in a
// fresh harness process, on the smallest workload of each launch path the
// candidate takes (PROTOCOL.md "launch") and of each value of each 0/1 flag the
// workloads set: out-of-bounds reads and shared-memory races can pass a numeric
// check by luck, and a kept commit must not carry them, also where only larger
// workloads reach the code (a dispatch variant, a path chosen by the plan for
// many key tiles) or only some inputs do (a data format behind a flag).
#include <algorithm>
#include <future>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "autoresearch/util/subprocess.h"
#include "steps.h"

namespace ar {

namespace {

// Each tool instruments every launch: more paths than this and the step would
// cost more than the verification it runs beside.
constexpr size_t kMaxSanitizedWorkloads = 6;

double bytes_of(const Manifest& m, const Workload& w) { return workload_bytes(m, w).value_or(1e299); }

// The (parameter, value) pairs of every 0/1 flag: a parameter that is 0 in some declared workloads, 1 in
// others and nothing else in any, in the order of the parameters' names.
std::vector<std::pair<std::string, double>> flag_values(const Manifest& m) {
  std::map<std::string, std::set<double>> seen;
  std::set<std::string> not_flags;
  for (const auto& w : m.workloads) {
    if (!w.params.is_object()) continue;
    for (const auto& [name, v] : w.params.items()) {
      if (!v.is_number() || (v.get<double>() != 0.0 && v.get<double>() != 1.0)) {
        not_flags.insert(name);
        continue;
      }
      seen[name].insert(v.get<double>());
    }
  }
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [name, values] : seen)
    if (!not_flags.count(name) && values.size() == 2) out.push_back({name, 1.0});   // 0 is the smallest's, most often
  for (const auto& [name, values] : seen)
    if (!not_flags.count(name) && values.size() == 2) out.push_back({name, 0.0});
  return out;
}

// The harness request that loads the candidate into the slot the scripts below use.
std::string load_line(const std::filesystem::path& artifact) {
  return nlohmann::json({{"cmd", "load"}, {"slot", "cand"}, {"artifact", artifact.string()}}).dump() + "\n";
}

std::string sanitizer_path() {
  auto p = find_program("compute-sanitizer");
  if (!p.empty()) return p;
  if (std::filesystem::exists("/usr/local/cuda/bin/compute-sanitizer")) return "/usr/local/cuda/bin/compute-sanitizer";
  return "";
}

// The harness's "launch" replies for every declared workload, asked of a plain
// (uninstrumented) harness process: binding runs only ar_plan. Empty when the
// harness cannot say (an old harness, a failed load): the smallest workload alone
// is sanitized then.
std::vector<nlohmann::json> ask_launch_paths(RunContext& ctx, const std::filesystem::path& artifact, int gpu,
                                             const std::atomic<bool>* cancel) {
  std::string script = load_line(artifact);
  for (const auto& w : ctx.manifest.workloads)
    script += nlohmann::json({{"cmd", "launch"}, {"slot", "cand"}, {"workload", workload_request(w)}}).dump() + "\n";
  script += R"({"cmd":"quit"})" "\n";
  ProcessSpec spec;
  spec.argv = {ctx.harness_exe.string(), "--gpu", std::to_string(gpu >= 0 ? gpu : ctx.cfg.gpu)};
  spec.stdin_data = script;
  spec.timeout = std::chrono::seconds(120);
  spec.cancel = cancel ? cancel : ctx.world.stop;
  const ProcessResult r = ctx.world.runner->run(spec);
  std::vector<nlohmann::json> replies;
  std::istringstream out(r.out);
  std::string line;
  while (std::getline(out, line)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.value("ok", false) && j.contains("launch")) replies.push_back(std::move(j));
  }
  return replies;
}

// sanitizer_kernel_filter of this tool's --help, asked once per process and tool.
std::vector<std::string> kernel_filter_of(RunContext& ctx, const std::string& tool) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<std::string>> known;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = known.find(tool);
  if (it != known.end()) return it->second;
  ProcessSpec spec;
  spec.argv = {tool, "--help"};
  spec.timeout = std::chrono::seconds(30);
  spec.cancel = ctx.world.stop;
  const ProcessResult r = ctx.world.runner->run(spec);
  return known[tool] = sanitizer_kernel_filter(r.out + r.err);
}

}  // namespace

std::vector<const Workload*> sanitizer_workloads(const Manifest& m, const std::vector<nlohmann::json>& launches) {
  if (m.workloads.empty()) return {};
  const auto by_bytes = [&m](const Workload* a, const Workload* b) { return bytes_of(m, *a) < bytes_of(m, *b); };
  const Workload* smallest = &*std::min_element(m.workloads.begin(), m.workloads.end(),
                                                [&](const Workload& a, const Workload& b) { return by_bytes(&a, &b); });
  std::vector<const Workload*> picked = {smallest};
  // The smallest workload of each launch path (a workload has one path), smallest first.
  std::map<std::string, const Workload*> per_path;
  for (const auto& reply : launches) {
    const Workload* w = m.find_workload(reply.value("workload", ""));
    if (!w) continue;
    const std::string path = reply["launch"].dump();
    auto it = per_path.find(path);
    if (it == per_path.end() || by_bytes(w, it->second)) per_path[path] = w;
  }
  std::vector<const Workload*> others;
  for (const auto& [path, w] : per_path)
    if (w != smallest) others.push_back(w);
  std::sort(others.begin(), others.end(), by_bytes);
  for (const Workload* w : others)
    if (picked.size() < kMaxSanitizedWorkloads) picked.push_back(w);
  // Then each value of each 0/1 flag the workloads set (a data format, a layout, a mode) that no
  // workload picked so far has: the smallest workload with it. A flag can switch code inside one
  // launch configuration (the record run sparse_mla-ideas17 kept an FP8 producer whose launch had
  // the BF16 one's grid and shared memory, so only BF16 inputs were sanitized for it).
  for (const auto& [flag, value] : flag_values(m)) {
    if (picked.size() >= kMaxSanitizedWorkloads) break;
    const auto has = [&, flag = flag, value = value](const Workload* w) { return w->params.value(flag, -1.0) == value; };
    if (std::any_of(picked.begin(), picked.end(), has)) continue;
    const Workload* best = nullptr;
    for (const auto& w : m.workloads)
      if (has(&w) && (!best || by_bytes(&w, best))) best = &w;
    if (best) picked.push_back(best);
  }
  return picked;
}

std::string sanitizer_script(const std::filesystem::path& artifact, const std::vector<const Workload*>& workloads,
                             unsigned long long seed, int other_distributions) {
  std::string script = load_line(artifact);
  for (size_t i = 0; i < workloads.size(); ++i) {
    nlohmann::json rq = {{"cmd", "exercise"}, {"slot", "cand"}, {"workload", workload_request(*workloads[i])}, {"seed", seed}};
    if (i > 0 && other_distributions > 0) rq["distributions"] = other_distributions;
    script += rq.dump() + "\n";
  }
  return script + R"({"cmd":"quit"})" "\n";
}

std::vector<std::string> sanitizer_kernel_filter(const std::string& help_text) {
  if (help_text.find("--kernel-name") != std::string::npos) return {"--kernel-name", "kns=ar_"};
  if (help_text.find("--filter") != std::string::npos) return {"--filter", "kns=ar_"};
  return {};
}

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
  const std::vector<const Workload*> workloads =
      sanitizer_workloads(ctx.manifest, ask_launch_paths(ctx, artifact, gpu, cancel));
  if (workloads.empty()) {
    *note = "the package declares no workload; skipped";
    return std::nullopt;
  }
  std::string names;
  for (const Workload* w : workloads) names += (names.empty() ? "" : ", ") + w->name;
  // The candidate and nothing else (exercise, not verify: no reference, no fingerprints), and only its
  // kernels instrumented where the tool can filter: the input generators of a large workload under
  // memcheck were most of the step's time (ideas13 on the H200: 224 s for three workloads).
  const std::vector<std::string> filter = kernel_filter_of(ctx, tool);
  // The two tools run at once, each in its own harness process: neither is
  // timed, and racecheck alone takes as long as memcheck.
  // memcheck's findings depend on the data (an invalid index read past a buffer), so every path sees every
  // input distribution; racecheck's on the schedule, so a larger path's first distribution is enough, and
  // racecheck, which tracks every shared-memory access, is the slow one there.
  struct Tool {
    const char* name;
    int other_distributions;   // sanitizer_script's: 0, every one
  };
  const std::vector<Tool> tools = {{"memcheck", 0}, {"racecheck", 1}};
  std::vector<std::future<ProcessResult>> runs;
  for (const Tool& t : tools) {
    ProcessSpec spec;
    // The harness probes for optional entry points (ar_stage2, ...), which the
    // sanitizer would report as API errors; only memory and race errors count.
    spec.argv = {tool, "--tool", t.name, "--report-api-errors", "no", "--error-exitcode", "99"};
    spec.argv.insert(spec.argv.end(), filter.begin(), filter.end());
    spec.argv.insert(spec.argv.end(), {ctx.harness_exe.string(), "--gpu", std::to_string(gpu >= 0 ? gpu : ctx.cfg.gpu)});
    spec.stdin_data = sanitizer_script(artifact, workloads, ctx.seed ^ 0x5a17, t.other_distributions);
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
      return fmt::format("{} on {}: {}", tools[i].name, names, *finding);
  }
  std::string done;
  for (size_t i = 0; i < tools.size(); ++i) {
    if (results[i].cancelled) {
      *note = "interrupted";
      return std::nullopt;
    }
    done += std::string(tools[i].name) + (results[i].timed_out ? " timed out (not counted against the candidate); " : " clean; ");
  }
  *note = done + "on " + names + (filter.empty() ? "" : " (the candidate's kernels instrumented)");
  return std::nullopt;
}

}  // namespace ar
