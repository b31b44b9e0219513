#include "autoresearch/loop/gpu_list.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "autoresearch/util/errors.h"

namespace ar {

namespace {

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  size_t b = s.find_last_not_of(" \t\r\n");
  return s.substr(a, b - a + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

std::vector<std::string> lines_of(const std::string& out) {
  std::vector<std::string> lines;
  for (auto& l : split(out, '\n'))
    if (!trim(l).empty()) lines.push_back(trim(l));
  return lines;
}

std::optional<int> gpu_index(const std::string& text) {
  int v = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0) return std::nullopt;
  return v;
}

ProcessResult nvidia_smi(ProcessRunner& runner, std::vector<std::string> args) {
  ProcessSpec spec;
  spec.argv = {"nvidia-smi"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.timeout = std::chrono::seconds(30);
  return runner.run(spec);
}

std::string failure(const ProcessResult& r) {
  if (r.spawn_failed) return "nvidia-smi is not installed (" + r.spawn_error + ")";
  return "nvidia-smi " + r.describe() + (r.err.empty() ? "" : ": " + trim(r.err));
}

}  // namespace

std::vector<int> parse_gpu_list(const std::string& text, const GpuLister& list_host) {
  const std::string t = trim(text);
  if (t.empty()) throw usage_error("--gpus: empty; give GPU indices (--gpus 0,1,2) or --gpus all");
  if (t == "all") {
    std::string why;
    auto host = list_host ? list_host(&why) : std::nullopt;
    if (!host) throw usage_error("--gpus all: the host's GPUs cannot be listed: " + why + "; give the indices instead");
    if (host->empty()) throw usage_error("--gpus all: this host has no GPU (nvidia-smi lists none)");
    return *host;
  }
  std::vector<int> gpus;
  for (const auto& part : split(t, ',')) {
    std::string p = trim(part);
    auto v = gpu_index(p);
    if (!v)
      throw usage_error(fmt::format("--gpus {}: '{}' is not a GPU index (expected a list like 0,1,3, or all)", t,
                                    p.empty() ? "(empty)" : p));
    if (std::find(gpus.begin(), gpus.end(), *v) != gpus.end())
      throw usage_error(fmt::format("--gpus {}: GPU {} is listed twice (one harness per GPU)", t, *v));
    gpus.push_back(*v);
  }
  return gpus;
}

std::optional<std::vector<int>> host_gpu_indices(ProcessRunner& runner, std::string* why) {
  auto r = nvidia_smi(runner, {"--query-gpu=index", "--format=csv,noheader"});
  if (!r.ok()) {
    *why = failure(r);
    return std::nullopt;
  }
  std::vector<int> gpus;
  for (const auto& l : lines_of(r.out)) {
    auto v = gpu_index(l);
    if (!v) {
      *why = "nvidia-smi printed '" + l + "' where a GPU index was expected";
      return std::nullopt;
    }
    gpus.push_back(*v);
  }
  return gpus;
}

std::optional<std::vector<std::string>> other_gpu_processes(ProcessRunner& runner, int gpu, std::string* why) {
  auto r = nvidia_smi(runner, {"-i", std::to_string(gpu), "--query-compute-apps=pid,process_name,used_memory",
                               "--format=csv,noheader"});
  if (!r.ok()) {
    *why = failure(r);
    return std::nullopt;
  }
  auto lines = lines_of(r.out);
  // nvidia-smi says so in words when it has nothing to list.
  lines.erase(std::remove_if(lines.begin(), lines.end(),
                             [](const std::string& l) { return l.find("No running") != std::string::npos; }),
              lines.end());
  return lines;
}

}  // namespace ar
