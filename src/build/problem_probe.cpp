#include "autoresearch/build/problem_probe.h"

#include <unistd.h>

#include <fmt/format.h>

#include "autoresearch/util/errors.h"
#include "autoresearch/util/hash.h"
#include "autoresearch/util/subprocess.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

std::vector<fs::path> probe_sources(const Manifest& m, const Paths& p) {
  const fs::path probe = p.home / "src" / "harness" / "probe";
  std::vector<fs::path> out = {probe / "probe_main.cpp"};
  if (m.backend == Backend::Cuda) out.push_back(probe / "cuda_check_stand_in.cpp");
  for (const auto& s : m.harness.sources) out.push_back(m.dir / s);
  return out;
}

std::string tail(const std::string& s, size_t n) { return s.size() > n ? s.substr(s.size() - n) : s; }

}  // namespace

fs::path build_probe(const Manifest& m, const Paths& p, const Toolchain& tc, ProcessRunner& runner,
                     const std::atomic<bool>* cancel) {
  // The harness hash covers the problem's sources and headers and the toolchain.
  Sha256 h;
  h.update(harness_hash(m, p, tc) + "\n");
  for (const auto& f : probe_sources(m, p)) h.update(f.filename().string() + "\n" + sha256_file(f) + "\n");
  const fs::path dir = p.harness_cache() / ("probe-" + h.hex_digest().substr(0, 16));
  const fs::path exe = dir / "probe";
  if (fs::exists(exe)) return exe;
  fs::create_directories(dir);

  std::vector<std::string> argv = {tc.compiler, "-std=c++20", "-O1"};
  if (m.backend == Backend::Cuda) argv.push_back("-arch=" + m.build.arch);
  argv.push_back("-I" + (p.home / "include").string());
  argv.push_back("-I" + (p.home / "src" / "harness").string());
  argv.push_back("-I" + m.dir.string());
  for (const auto& s : probe_sources(m, p)) argv.push_back(s.string());
  argv.insert(argv.end(), m.harness.flags.begin(), m.harness.flags.end());
  const fs::path tmp = dir / ("probe.tmp." + std::to_string(::getpid()));
  argv.insert(argv.end(), {"-o", tmp.string()});

  ProcessSpec spec;
  spec.argv = argv;
  spec.cwd = dir;
  spec.timeout = std::chrono::seconds(900);
  spec.cancel = cancel;
  auto r = runner.run(spec);
  if (r.cancelled) throw Fatal(kExitInterrupted, "interrupted while compiling the problem");
  if (r.spawn_failed) throw Fatal(kExitInfrastructure, fmt::format("cannot run {}: {}", tc.compiler, r.spawn_error));
  if (!r.ok() || !fs::exists(tmp)) {
    std::string cmd;
    for (const auto& a : argv) cmd += a + " ";
    throw usage_error(fmt::format("{}: harness.sources: the problem does not compile for the host ({}):\n{}\ncommand: {}",
                                  m.file.string(), r.describe(), tail(r.err + r.out, 6000), cmd));
  }
  fs::rename(tmp, exe);
  return exe;
}

ProbeReport run_probe(const fs::path& exe, const std::vector<ProbeWorkload>& workloads, ProcessRunner& runner) {
  nlohmann::json request = {{"workloads", nlohmann::json::array()}};
  for (size_t i = 0; i < workloads.size(); ++i) request["workloads"].push_back({{"id", i}, {"params", workloads[i].params}});
  ProcessSpec spec;
  spec.argv = {exe.string()};
  spec.stdin_data = request.dump();
  spec.timeout = std::chrono::seconds(60);
  auto r = runner.run(spec);
  nlohmann::json reply;
  try {
    reply = nlohmann::json::parse(r.out);
  } catch (const std::exception&) {
    throw usage_error(fmt::format("the problem's host side failed when asked about the workloads ({}): {}",
                                  r.describe(), tail(r.err, 2000)));
  }
  if (!reply.value("ok", false))
    throw usage_error(fmt::format("make_problem() failed: {}", reply.value("error", std::string("?"))));
  ProbeReport out;
  out.outputs = reply.value("outputs", std::vector<std::string>{});
  out.params = reply.value("params", std::vector<std::string>{});
  out.workloads.resize(workloads.size());
  for (const auto& w : reply.at("workloads")) {
    const size_t id = w.at("id").get<size_t>();
    if (id >= out.workloads.size()) continue;
    auto& v = out.workloads[id];
    v.ok = w.value("ok", false);
    v.error = w.value("error", std::string());
    v.rotation_bytes = w.value("rotation_bytes", 0ll);
  }
  return out;
}

}  // namespace ar
