#include "autoresearch/build/builder.h"

#include <fstream>

#include <fmt/format.h>

#include "autoresearch/util/subprocess.h"

namespace fs = std::filesystem;

namespace ar {

Builder::Builder(const Manifest& m, const Paths& p, Toolchain tc, ProcessRunner& runner)
    : m_(m), paths_(p), tc_(std::move(tc)), runner_(runner) {}

const char* Builder::artifact_name() const {
  return m_.backend == Backend::Cuda ? "kernel.cubin" : "kernel.so";
}

static std::vector<std::string> common_flags(const Manifest& m, const Paths& paths,
                                             const fs::path& package_dir, const Tunables& t) {
  std::vector<std::string> a;
  if (m.backend == Backend::Cuda) {
    a = {"-arch=" + m.build.arch, "-O3"};
  } else {
    a = {"-std=c++20", "-O2", "-march=native", "-fPIC"};
  }
  a.insert(a.end(), m.build.flags.begin(), m.build.flags.end());
  for (const auto& [k, v] : t) a.push_back(fmt::format("-D{}={}", k, v));
  a.push_back("-I" + (paths.home / "include").string());
  a.push_back("-I" + package_dir.string());
  return a;
}

std::vector<std::string> Builder::compile_argv(const fs::path& package_dir, const Tunables& t,
                                               const fs::path& artifact) const {
  return compile_argv(package_dir / m_.kernel_source, package_dir, t, {}, artifact);
}

std::vector<std::string> Builder::compile_argv(const fs::path& source, const fs::path& package_dir, const Tunables& t,
                                               const std::vector<std::string>& extra_flags,
                                               const fs::path& artifact) const {
  std::vector<std::string> a = {tc_.compiler};
  if (m_.backend == Backend::Cuda) {
    a.insert(a.end(), {"-cubin", "--keep", "--keep-dir", artifact.parent_path().string()});
  } else {
    a.push_back("-shared");
  }
  auto f = common_flags(m_, paths_, package_dir, t);
  a.insert(a.end(), f.begin(), f.end());
  a.insert(a.end(), extra_flags.begin(), extra_flags.end());
  if (m_.backend == Backend::Cuda) a.push_back("-Xptxas=-v");
  a.push_back(source.string());
  a.push_back("-o");
  a.push_back(artifact.string());
  return a;
}

std::vector<std::string> Builder::preprocess_argv(const fs::path& package_dir, const Tunables& t) const {
  std::vector<std::string> a = {tc_.compiler, "-E"};
  auto f = common_flags(m_, paths_, package_dir, t);
  a.insert(a.end(), f.begin(), f.end());
  // nvcc -E with an -arch preprocesses the device pass (__CUDA_ARCH__ defined),
  // which is all a cubin candidate contains.
  a.push_back((package_dir / m_.kernel_source).string());
  return a;
}

static std::string tail(const std::string& s, size_t n) {
  return s.size() <= n ? s : "..." + s.substr(s.size() - n);
}

std::vector<std::string> Builder::disassemble_argv(const fs::path& artifact) const {
  if (tc_.disassembler.empty()) return {};
  const std::string tool = fs::path(tc_.disassembler).filename().string();
  if (tool == "cuobjdump") return {tc_.disassembler, "-sass", artifact.string()};
  if (tool == "nvdisasm") return {tc_.disassembler, artifact.string()};
  return {tc_.disassembler, "-d", "--no-show-raw-insn", artifact.string()};   // objdump
}

namespace {

// nvcc --keep leaves every intermediate (the preprocessed source alone is
// ~2 MB for sparse_mla): only the PTX is wanted.
void remove_intermediates(const fs::path& dir, const std::string& stem, const fs::path& keep_a, const fs::path& keep_b) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const fs::path& p = e.path();
    if (!e.is_regular_file(ec) || p == keep_a || p == keep_b) continue;
    if (p.filename().string().rfind(stem + ".", 0) == 0) fs::remove(p, ec);
  }
}

}  // namespace

void Builder::disassemble(BuildResult& r, const std::atomic<bool>* cancel) const {
  auto argv = disassemble_argv(r.artifact);
  if (argv.empty()) {
    r.disassembly_note = "no disassembler installed";
    return;
  }
  ProcessSpec spec;
  spec.argv = argv;
  spec.timeout = std::chrono::seconds(120);
  spec.cancel = cancel;
  spec.max_output_bytes = 256u << 20;
  auto p = runner_.run(spec);
  if (!p.ok()) {
    r.disassembly_note = fs::path(argv[0]).filename().string() + " " + p.describe() + ": " + tail(p.err, 400);
    return;
  }
  const fs::path out = r.artifact.parent_path() / (m_.backend == Backend::Cuda ? "kernel.sass" : "kernel.dis");
  std::ofstream f(out, std::ios::binary);
  f << p.out;
  if (!f) {
    r.disassembly_note = "cannot write " + out.string();
    return;
  }
  r.disassembly = out;
}

BuildResult Builder::build(const fs::path& package_dir, const Tunables& t, const fs::path& out_dir,
                           const std::atomic<bool>* cancel) const {
  return build_source(package_dir / m_.kernel_source, package_dir, t, {}, out_dir, cancel);
}

BuildResult Builder::build_source(const fs::path& source, const fs::path& package_dir, const Tunables& t,
                                  const std::vector<std::string>& extra_flags, const fs::path& out_dir,
                                  const std::atomic<bool>* cancel) const {
  BuildResult r;
  fs::create_directories(out_dir);
  r.artifact = out_dir / artifact_name();
  fs::remove(r.artifact);
  ProcessSpec spec;
  spec.argv = compile_argv(source, package_dir, t, extra_flags, r.artifact);
  spec.cwd = out_dir;
  spec.timeout = std::chrono::milliseconds(static_cast<long long>(m_.build.timeout_s * 1000));
  spec.cancel = cancel;
  auto p = runner_.run(spec);
  r.seconds = p.seconds;
  r.timed_out = p.timed_out;
  r.cancelled = p.cancelled;
  r.ok = p.ok() && fs::exists(r.artifact);
  if (m_.backend == Backend::Cuda) {
    parse_ptxas_report(p.err + p.out, r);
    const std::string stem = source.stem().string();
    const fs::path ptx = out_dir / (stem + ".ptx");
    if (fs::exists(ptx)) r.ptx = ptx;
    remove_intermediates(out_dir, stem, r.artifact, r.ptx);
  }
  if (r.ok) disassemble(r, cancel);
  if (!r.ok) {
    std::string msg = p.err.empty() ? p.out : p.err;
    if (p.timed_out) msg = fmt::format("compile timed out after {:.0f} s\n", m_.build.timeout_s) + msg;
    else if (!p.ok()) msg = "compiler " + p.describe() + "\n" + msg;
    else msg = "the compiler wrote no " + std::string(artifact_name()) + "\n" + msg;
    r.errors = tail(msg, 6000);
  }
  return r;
}

std::optional<std::string> Builder::preprocess(const fs::path& package_dir, const Tunables& t,
                                               std::string* errors, const std::atomic<bool>* cancel) const {
  ProcessSpec spec;
  spec.argv = preprocess_argv(package_dir, t);
  spec.timeout = std::chrono::milliseconds(static_cast<long long>(m_.build.timeout_s * 1000));
  spec.cancel = cancel;
  spec.max_output_bytes = 64u << 20;
  auto p = runner_.run(spec);
  if (!p.ok()) {
    // The compiler's first error leads: a build_error's reason is the first line
    // of this text, and "preprocessor exit status 1" tells the agent nothing.
    std::string first;
    size_t start = 0;
    while (start < p.err.size()) {
      size_t end = p.err.find('\n', start);
      if (end == std::string::npos) end = p.err.size();
      std::string line = p.err.substr(start, end - start);
      start = end + 1;
      if (line.find("error") != std::string::npos) {
        first = line;
        break;
      }
      if (first.empty() && line.find_first_not_of(" \t\r") != std::string::npos) first = line;
    }
    std::string status = "preprocessor " + p.describe();
    if (errors) *errors = first.empty() ? status + "\n" : first + "\n(" + status + ")\n" + tail(p.err, 6000);
    return std::nullopt;
  }
  return p.out;
}

std::string Builder::identity() const {
  std::string s = tc_.compiler + " | " + tc_.version + " |";
  auto f = common_flags(m_, paths_, "<pkg>", {});
  for (const auto& x : f) s += " " + x;
  return s;
}

}  // namespace ar
