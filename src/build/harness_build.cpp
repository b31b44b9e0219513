#include <algorithm>
#include <atomic>
#include <thread>

#include <fmt/format.h>

#include "autoresearch/build/builder.h"
#include "autoresearch/util/errors.h"
#include "autoresearch/util/file_lock.h"
#include "autoresearch/util/hash.h"
#include "autoresearch/util/subprocess.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

std::vector<fs::path> files_in(const fs::path& dir, std::initializer_list<const char*> exts) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    for (const char* x : exts)
      if (e.path().extension() == x) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Runs the specs at once, as many at a time as the machine has cores.
std::vector<ProcessResult> run_all(ProcessRunner& runner, const std::vector<ProcessSpec>& specs) {
  std::vector<ProcessResult> results(specs.size());
  std::atomic<size_t> next{0};
  const size_t workers = std::min<size_t>(specs.size(), std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (size_t w = 0; w < workers; ++w)
    pool.emplace_back([&] {
      for (size_t i = next++; i < specs.size(); i = next++) results[i] = runner.run(specs[i]);
    });
  for (auto& t : pool) t.join();
  return results;
}

const char* backend_dir(const Manifest& m) { return m.backend == Backend::Cuda ? "cuda" : "cpu"; }

std::vector<fs::path> harness_sources(const Manifest& m, const Paths& p) {
  fs::path root = p.home / "src" / "harness";
  auto out = files_in(root / "common", {".cpp"});
  auto backend = files_in(root / backend_dir(m), {".cpp", ".cu"});
  out.insert(out.end(), backend.begin(), backend.end());
  for (const auto& s : m.harness.sources) out.push_back(m.dir / s);
  return out;
}

// Every file the harness build reads: its sources, their headers, and the
// package's protected files (the oracle, the params struct).
std::vector<fs::path> harness_inputs(const Manifest& m, const Paths& p) {
  fs::path root = p.home / "src" / "harness";
  auto out = harness_sources(m, p);
  for (const auto& d : {root / "common", root / fs::path(backend_dir(m)), p.home / "include" / "autoresearch" / "harness"}) {
    auto h = files_in(d, {".h", ".hpp", ".cuh"});
    out.insert(out.end(), h.begin(), h.end());
  }
  // The package's protected sources and headers (the manifest is not compiled
  // in: the workloads and tolerances have their own hash).
  for (const auto& e : fs::directory_iterator(m.dir)) {
    if (!e.is_regular_file()) continue;
    std::string rel = e.path().filename().string();
    std::string ext = e.path().extension().string();
    bool source = ext == ".h" || ext == ".hpp" || ext == ".cuh" || ext == ".cpp" || ext == ".cc" || ext == ".cu";
    bool editable = std::find(m.editable.begin(), m.editable.end(), rel) != m.editable.end();
    if (source && !editable) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

std::string harness_hash(const Manifest& m, const Paths& p, const Toolchain& tc) {
  Sha256 h;
  h.update(tc.compiler + "\n" + tc.version + "\n" + m.build.arch + "\n");
  for (const auto& f : m.harness.flags) h.update(f + "\n");
  for (const auto& f : harness_inputs(m, p)) {
    h.update(f.filename().string() + "\n");
    h.update(sha256_file(f) + "\n");
  }
  return h.hex_digest().substr(0, 16);
}

fs::path build_harness(const Manifest& m, const Paths& p, const Toolchain& tc, ProcessRunner& runner,
                       const std::atomic<bool>* cancel) {
  std::string hash = harness_hash(m, p, tc);
  fs::path dir = p.harness_cache() / (std::string(backend_dir(m)) + "-" + hash);
  fs::path exe = dir / "harness";
  if (fs::exists(exe)) return exe;
  fs::create_directories(dir);
  std::string holder;
  // Two runs starting at once build it once; the second waits for the lock.
  std::unique_ptr<FileLock> lock;
  for (int i = 0; i < 600 && !lock; ++i) {
    lock = FileLock::try_acquire(dir / "build.lock", "harness build", &holder);
    if (!lock) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  if (fs::exists(exe)) return exe;

  fs::path root = p.home / "src" / "harness";
  std::vector<std::string> compile = {tc.compiler, "-std=c++20", "-O2"};
  if (m.backend == Backend::Cuda) compile.push_back("-arch=" + m.build.arch);
  else compile.push_back("-march=native");
  compile.push_back("-I" + (p.home / "include").string());
  compile.push_back("-I" + root.string());
  compile.push_back("-I" + m.dir.string());
  compile.insert(compile.end(), m.harness.flags.begin(), m.harness.flags.end());
  const std::string pthread = m.backend == Backend::Cuda ? "-Xcompiler=-pthread" : "-pthread";
  compile.push_back(pthread);
  auto spec_for = [&](std::vector<std::string> argv) {
    ProcessSpec spec;
    spec.argv = std::move(argv);
    spec.cwd = dir;
    spec.timeout = std::chrono::seconds(900);
    spec.cancel = cancel;
    return spec;
  };

  // Each source compiles on its own core (the oracle and the CUDA sources take
  // most of a minute each with nvcc); one link makes the executable.
  const auto sources = harness_sources(m, p);
  fs::path objects = dir / "objects";
  fs::create_directories(objects);
  std::vector<ProcessSpec> specs;
  std::vector<std::string> link = {tc.compiler};
  if (m.backend == Backend::Cuda) link.push_back("-arch=" + m.build.arch);
  for (size_t i = 0; i < sources.size(); ++i) {
    fs::path obj = objects / fmt::format("{}-{}.o", i, sources[i].stem().string());
    auto argv = compile;
    argv.insert(argv.end(), {"-c", sources[i].string(), "-o", obj.string()});
    specs.push_back(spec_for(std::move(argv)));
    link.push_back(obj.string());
  }
  link.insert(link.end(), m.harness.flags.begin(), m.harness.flags.end());
  if (m.backend == Backend::Cuda) {
    // Link against the toolkit's stub so a machine without a driver can build
    // the harness too; at run time the loader finds the driver's libcuda.so.1.
    auto stubs = std::filesystem::path(tc.compiler).parent_path().parent_path() / "lib64" / "stubs";
    if (std::filesystem::exists(stubs)) link.push_back("-L" + stubs.string());
    link.push_back("-lcuda");
  }
  link.push_back("-ldl");
  link.push_back(pthread);
  // A CPU candidate runs inside the harness process: full RELRO makes the
  // harness's GOT read-only after start-up, so a kernel cannot redirect the
  // harness's own library calls (the comparison's, the reply's) through it.
  if (m.backend == Backend::Cpu) link.push_back("-Wl,-z,relro,-z,now");
  fs::path tmp = dir / "harness.tmp";
  link.push_back("-o");
  link.push_back(tmp.string());
  const ProcessSpec link_spec = spec_for(std::move(link));

  auto failed = [&](const ProcessSpec& spec, const ProcessResult& r) {
    if (r.cancelled) throw Fatal(kExitInterrupted, "interrupted while building the harness");
    std::string cmd;
    for (const auto& a : spec.argv) cmd += a + " ";
    throw Fatal(kExitInfrastructure,
                fmt::format("the harness for {} did not build ({}):\n{}\ncommand: {}", m.name, r.describe(),
                            r.err.size() > 8000 ? r.err.substr(r.err.size() - 8000) : r.err, cmd));
  };
  const auto results = run_all(runner, specs);
  for (size_t i = 0; i < specs.size(); ++i)
    if (!results[i].ok()) failed(specs[i], results[i]);
  auto r = runner.run(link_spec);
  if (!r.ok() || !fs::exists(tmp)) failed(link_spec, r);
  std::error_code ec;
  fs::remove_all(objects, ec);
  fs::rename(tmp, exe);
  return exe;
}

}  // namespace ar
