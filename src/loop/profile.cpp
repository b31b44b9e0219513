#include "autoresearch/loop/profile.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "autoresearch/loop/evaluation.h"
#include "autoresearch/util/fs.h"
#include "autoresearch/util/subprocess.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

// One CSV record; quotes and doubled quotes as ncu writes them.
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::optional<double> number(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ','), s.end());
  try {
    size_t used = 0;
    double v = std::stod(s, &used);
    return used > 0 ? std::optional<double>(v) : std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string ncu_path() {
  std::string p = find_program("ncu");
  if (!p.empty()) return p;
  for (const char* c : {"/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/ncu"})
    if (fs::exists(c)) return c;
  return "";
}

std::optional<double> metric(const nlohmann::json& m, const std::string& name) {
  auto it = m.find(name);
  if (it == m.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

}  // namespace

const Workload* profile_workload(const Manifest& m) {
  const Workload* best = nullptr;
  double least = std::numeric_limits<double>::infinity();
  for (const Workload* w : m.timed_workloads()) {
    double f = workload_flops(m, *w).value_or(workload_bytes(m, *w).value_or(0));
    if (!best || f < least) {
      best = w;
      least = f;
    }
  }
  return best;
}

nlohmann::json parse_ncu_raw_csv(const std::string& csv) {
  nlohmann::json kernels = nlohmann::json::array();
  std::vector<std::string> header, units;
  size_t start = 0;
  while (start < csv.size()) {
    size_t end = csv.find('\n', start);
    if (end == std::string::npos) end = csv.size();
    std::string line = csv.substr(start, end - start);
    start = end + 1;
    if (line.empty() || line[0] != '"') continue;   // ncu's own "==PROF==" lines
    auto f = csv_fields(line);
    if (header.empty()) {
      if (std::find(f.begin(), f.end(), "Kernel Name") != f.end()) header = f;
      continue;
    }
    if (f.size() != header.size()) continue;
    if (f[0].empty()) {   // the units row, right after the header
      units = f;
      continue;
    }
    nlohmann::json k = {{"metrics", nlohmann::json::object()}};
    bool seen = false;
    for (size_t i = 0; i < f.size(); ++i) {
      const std::string& h = header[i];
      if (h == "Kernel Name") {
        k["name"] = f[i];
        for (const auto& other : kernels) seen = seen || other.value("name", "") == f[i];
      }
      else if (h == "Block Size") k["block"] = f[i];
      else if (h == "Grid Size") k["grid"] = f[i];
      else if (h.find("__") != std::string::npos) {
        if (auto v = number(f[i])) {
          double x = *v;
          // Times in microseconds, whatever unit this ncu reports them in.
          // (gpu__time_duration is in nanoseconds when ncu gives no unit.)
          std::string unit = i < units.size() ? units[i] : "";
          if (unit.empty() && h.find("time_duration") != std::string::npos) unit = "ns";
          if (unit == "nsecond" || unit == "ns") x /= 1000;
          else if (unit == "msecond" || unit == "ms") x *= 1000;
          else if (unit == "second" || unit == "s") x *= 1e6;
          k["metrics"][h] = x;
        }
      }
    }
    if (!seen) kernels.push_back(k);   // a stage launched again (the second verify run) adds nothing
  }
  return kernels;
}

nlohmann::json launch_occupancy_of(const std::string& harness_stdout) {
  size_t start = 0;
  while (start < harness_stdout.size()) {
    size_t end = harness_stdout.find('\n', start);
    if (end == std::string::npos) end = harness_stdout.size();
    auto j = nlohmann::json::parse(harness_stdout.substr(start, end - start), nullptr, false);
    start = end + 1;
    if (j.is_object() && j.value("ok", false) && j.contains("occupancy") && j["occupancy"].is_object())
      return j["occupancy"];
  }
  return nullptr;
}

namespace {

// The stage index of a stage kernel's name (ar_stage1, ar_k2_stage0), -1 for another name.
int stage_index(const std::string& name) {
  const size_t at = name.rfind("stage");
  if (at == std::string::npos || at + 5 >= name.size()) return -1;
  int i = 0;
  for (size_t k = at + 5; k < name.size(); ++k) {
    if (name[k] < '0' || name[k] > '9') return -1;
    i = i * 10 + (name[k] - '0');
  }
  return i;
}

std::string occupancy_line(const nlohmann::json& occupancy, const std::string& kernel_name) {
  const int i = stage_index(kernel_name);
  if (!occupancy.is_object() || i < 0) return "";
  const auto stages = occupancy.value("stages", nlohmann::json::array());
  if (!stages.is_array() || i >= static_cast<int>(stages.size()) || !stages[i].is_object()) return "";
  const auto& st = stages[i];
  const long long blocks = st.value("blocks", -1LL), resident = st.value("resident_blocks", -1LL),
                  waves = st.value("waves", -1LL);
  if (blocks < 0 || resident < 0 || waves < 0) return "";
  std::string clusters;
  if (st.contains("resident_clusters") && st["resident_clusters"].is_number_integer()) {
    const long long n = st["resident_clusters"].get<long long>();
    clusters = fmt::format(" ({} clusters of {})", n, n > 0 ? resident / n : 0);
  }
  return fmt::format("- resident at once: {} blocks{} of its {}: {} wave{}\n", resident, clusters, blocks, waves,
                     waves == 1 ? "" : "s");
}

}  // namespace

std::string describe_profile(const nlohmann::json& kernels, const std::string& workload,
                             const nlohmann::json& occupancy) {
  std::string out = fmt::format("Nsight Compute, --clock-control none, workload `{}` (first launch of each stage):\n\n",
                                workload);
  for (const auto& k : kernels) {
    const auto& m = k["metrics"];
    out += fmt::format("## {} (grid {}, block {})\n", k.value("name", "?"), k.value("grid", "?"), k.value("block", "?"));
    out += occupancy_line(occupancy, k.value("name", ""));
    auto line = [&](const char* label, const char* name, const char* unit) {
      if (auto v = metric(m, name)) out += fmt::format("- {}: {:.1f}{}\n", label, *v, unit);
    };
    line("duration (one profiled launch, caches flushed by ncu)", "gpu__time_duration.sum", " µs");
    line("SM throughput", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "% of peak");
    line("DRAM throughput", "dram__throughput.avg.pct_of_peak_sustained_elapsed", "% of peak");
    line("memory throughput", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "% of peak");
    line("achieved occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active", "% of the SM's warps");
    line("registers per thread", "launch__registers_per_thread", "");
    // Tensor pipes: the averages ncu reports for the tensor units that did work
    // (hmma: mma.sync; gmma: wgmma), so the reader sees which path the kernel is on.
    for (const auto& [name, v] : m.items())
      if (name.find("pipe_tensor") != std::string::npos && name.find(".avg.pct_of_peak_sustained_active") != std::string::npos &&
          v.get<double>() > 0.05)
        out += fmt::format("- {}: {:.1f}% of peak\n", name, v.get<double>());
    // Stall reasons: cycles a warp waited per issued instruction, largest first.
    std::vector<std::pair<double, std::string>> stalls;
    const std::string pre = "smsp__average_warps_issue_stalled_", post = "_per_issue_active.ratio";
    for (const auto& [name, v] : m.items()) {
      if (name.rfind(pre, 0) != 0 || name.size() <= pre.size() + post.size()) continue;
      if (name.compare(name.size() - post.size(), post.size(), post) != 0) continue;
      stalls.emplace_back(v.get<double>(), name.substr(pre.size(), name.size() - pre.size() - post.size()));
    }
    std::sort(stalls.rbegin(), stalls.rend());
    if (!stalls.empty()) {
      out += "- top stall reasons (cycles per issued instruction):";
      for (size_t i = 0; i < stalls.size() && i < 5; ++i)
        out += fmt::format("{} {} {:.2f}", i ? "," : "", stalls[i].second, stalls[i].first);
      out += "\n";
    }
    out += "\n";
  }
  return out;
}

std::optional<Profile> profile_kernel(ProcessRunner& runner, const ProfileRequest& rq, std::string* why) {
  auto fail = [&](const std::string& w) -> std::optional<Profile> {
    if (why) *why = w;
    return std::nullopt;
  };
  if (!rq.manifest || rq.manifest->backend != Backend::Cuda) return fail("profiles are for CUDA packages");
  std::string ncu = ncu_path();
  if (ncu.empty()) return fail("ncu (Nsight Compute) is not installed");
  const Workload* w = rq.workload.empty() ? profile_workload(*rq.manifest) : rq.manifest->find_workload(rq.workload);
  if (!w)
    return fail(rq.workload.empty() ? "the package has no timed workload"
                                    : "the package has no workload named '" + rq.workload + "'");
  fs::create_directories(rq.work_dir);
  fs::path log = rq.work_dir / "ncu.csv";
  std::error_code ec;
  fs::remove(log, ec);

  // The harness speaks its protocol on stdin/stdout through ncu; ncu's report goes to the log file.
  nlohmann::json verify = {{"cmd", "verify"},   {"slot", "prof"},        {"workload", workload_request(*w)},
                           {"seed", 12345},     {"deterministic", true}, {"tolerances", tolerances_json(*rq.manifest)}};
  ProcessSpec spec;
  // A dispatch cubin launches ar_k<k>_stage<i> (launch_plan.h), a plain one ar_stage<i>.
  spec.argv = {ncu, "--clock-control", "none", "--target-processes", "all", "--kernel-name", "regex:^ar_(k[0-9]+_)?stage",
               "--launch-count", "4", "--section", "SpeedOfLight", "--section", "Occupancy", "--section",
               "WarpStateStats", "--section", "ComputeWorkloadAnalysis", "--section", "LaunchStats", "--csv", "--page",
               "raw", "--log-file", log.string(), rq.harness_exe.string(), "--gpu", std::to_string(rq.gpu)};
  spec.stdin_data = nlohmann::json({{"cmd", "hello"}}).dump() + "\n" +
                    nlohmann::json({{"cmd", "load"}, {"slot", "prof"}, {"artifact", rq.artifact.string()}}).dump() +
                    "\n" +
                    nlohmann::json({{"cmd", "launch"}, {"slot", "prof"}, {"workload", workload_request(*w)}}).dump() +
                    "\n" + verify.dump() + "\n" + nlohmann::json({{"cmd", "quit"}}).dump() + "\n";
  spec.timeout = std::chrono::milliseconds(static_cast<long long>(rq.timeout_s * 1000));
  spec.cancel = rq.cancel;
  auto r = runner.run(spec);
  std::string csv = fs::exists(log) ? read_file(log) : "";
  auto kernels = parse_ncu_raw_csv(csv);
  if (kernels.empty()) {
    std::string detail = r.err.empty() ? csv.substr(0, 400) : r.err.substr(0, 400);
    return fail(fmt::format("ncu profiled no kernel ({}): {}", r.describe(), detail));
  }
  Profile p;
  p.workload = w->name;
  p.kernels = kernels;
  p.text = describe_profile(kernels, w->name, launch_occupancy_of(r.out));
  return p;
}

}  // namespace ar
