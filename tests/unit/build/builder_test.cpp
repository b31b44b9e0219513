// The builder's part in the compiled-code scan, against a fake compiler: nvcc
// keeps its PTX in the candidate's build folder (--keep --keep-dir), the other
// intermediates are removed, the PTX survives a ptxas failure, and the
// disassembler (when the toolchain has one) writes the machine code beside the
// artifact.
#include <fstream>

#include "autoresearch/build/builder.h"
#include "catch.h"
#include "unit/fakes/fake_process.h"
#include "unit/fakes/temp_dir.h"

namespace fs = std::filesystem;
using namespace ar;

namespace {

Manifest package(const fs::path& dir, const char* backend) {
  fs::create_directories(dir);
  const bool cuda = std::string(backend) == "cuda";
  std::ofstream(dir / (cuda ? "kernel.cu" : "kernel.cpp")) << "// kernel\n";
  std::ofstream(dir / "manifest.json") << R"({"schema": 1, "name": "pkg", "backend": ")" << backend << R"(",
    "editable": [")" << (cuda ? "kernel.cu" : "kernel.cpp") << R"("],
    "kernel": {"source": ")" << (cuda ? "kernel.cu" : "kernel.cpp") << R"(", "tunables_file": "tunables.json"},
    "build": {"flags": [], "arch": "sm_90", "timeout_s": 30},
    "harness": {"sources": ["problem.cpp"]},
    "tunables": [{"name": "X", "values": [0, 1], "default": 0}],
    "workloads": [{"name": "w", "params": {"n": 1}, "quick": true, "timed": true}],
    "tolerances": [{"output": "out", "abs": 1e-3}]})";
  std::ofstream(dir / "tunables.json") << "{\"X\": 0}\n";
  std::ofstream(dir / "problem.cpp") << "// protected\n";
  return load_manifest(dir / "manifest.json");
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// A fake nvcc that writes what the real one leaves with --keep, then succeeds
// or (ptxas_fails) stops after the PTX as ptxas does on an unresolved extern.
FakeProcessRunner::Responder fake_nvcc(bool ptxas_fails) {
  return [ptxas_fails](const ProcessSpec& s) {
    auto keep = std::find(s.argv.begin(), s.argv.end(), "--keep-dir");
    const fs::path dir = *(keep + 1);
    for (const char* f : {"kernel.cpp1.ii", "kernel.cudafe1.c", "kernel.cudafe1.gpu", "kernel.module_id"})
      std::ofstream(dir / f) << "intermediate";
    std::ofstream(dir / "kernel.ptx") << ".version 9.0\n.target sm_90\n";
    if (ptxas_fails) return FakeProcessRunner::exited(255, "", "ptxas fatal   : Unresolved extern function 'x'");
    auto out = std::find(s.argv.begin(), s.argv.end(), "-o");
    std::ofstream(*(out + 1)) << "\x7f" "ELF";
    return FakeProcessRunner::exited(0, "", "ptxas info    : Used 32 registers");
  };
}

}  // namespace

TEST_CASE("CUDA builds keep the PTX in the build folder and drop the other intermediates") {
  TempDir dir;
  Manifest m = package(dir / "pkg", "cuda");
  Paths paths;
  paths.home = dir.path();
  FakeProcessRunner runner;
  runner.on("nvcc", fake_nvcc(false));
  runner.on("cuobjdump", FakeProcessRunner::exited(0, "Function : ar_stage0\n /*0000*/ EXIT ;\n"));
  Builder b(m, paths, Toolchain{"/opt/cuda/bin/nvcc", "release 13.0", "/opt/cuda/bin/cuobjdump"}, runner);

  auto argv = b.compile_argv(m.dir, {{"X", 1}}, dir / "out" / "kernel.cubin");
  CHECK(contains(argv, "-cubin"));
  auto keep = std::find(argv.begin(), argv.end(), "--keep");
  REQUIRE(keep != argv.end());
  REQUIRE(keep + 2 < argv.end());
  CHECK(*(keep + 1) == "--keep-dir");
  CHECK(*(keep + 2) == (dir / "out").string());

  auto r = b.build(m.dir, {{"X", 1}}, dir / "out", nullptr);
  INFO(r.errors << r.disassembly_note);
  REQUIRE(r.ok);
  CHECK(r.ptx == dir / "out" / "kernel.ptx");
  CHECK(fs::exists(r.ptx));
  CHECK(fs::exists(r.artifact));
  for (const char* gone : {"kernel.cpp1.ii", "kernel.cudafe1.c", "kernel.cudafe1.gpu", "kernel.module_id"})
    CHECK_FALSE(fs::exists(dir / "out" / gone));
  // The SASS is written beside the artifact for the scan.
  CHECK(r.disassembly == dir / "out" / "kernel.sass");
  CHECK(slurp(r.disassembly).find("Function : ar_stage0") != std::string::npos);
  CHECK(runner.command_line(1) == "/opt/cuda/bin/cuobjdump -sass " + r.artifact.string());
}

TEST_CASE("a CUDA build that ptxas refuses still leaves its PTX for the scan") {
  TempDir dir;
  Manifest m = package(dir / "pkg", "cuda");
  Paths paths;
  paths.home = dir.path();
  FakeProcessRunner runner;
  runner.on("nvcc", fake_nvcc(true));
  Builder b(m, paths, Toolchain{"nvcc", "release 13.0", ""}, runner);
  auto r = b.build(m.dir, {}, dir / "out", nullptr);
  CHECK_FALSE(r.ok);
  CHECK(r.ptx == dir / "out" / "kernel.ptx");
  CHECK(r.errors.find("Unresolved extern") != std::string::npos);
  CHECK(r.disassembly.empty());   // nothing to disassemble
  CHECK(runner.calls().size() == 1);
}

TEST_CASE("CPU builds are disassembled with objdump when it is there, and say so when not") {
  TempDir dir;
  Manifest m = package(dir / "pkg", "cpu");
  Paths paths;
  paths.home = dir.path();
  FakeProcessRunner runner;
  runner.on("c++", [](const ProcessSpec& s) {
    auto out = std::find(s.argv.begin(), s.argv.end(), "-o");
    std::ofstream(*(out + 1)) << "\x7f" "ELF";
    return FakeProcessRunner::exited(0);
  });
  runner.on("objdump", FakeProcessRunner::exited(0, "0000000000001100 <ar_kernel>:\n    1100:\tret\n"));

  Builder with(m, paths, Toolchain{"c++", "g++ 12", "/usr/bin/objdump"}, runner);
  CHECK_FALSE(contains(with.compile_argv(m.dir, {}, dir / "a" / "kernel.so"), "--keep"));
  auto r = with.build(m.dir, {}, dir / "a", nullptr);
  REQUIRE(r.ok);
  CHECK(r.ptx.empty());
  CHECK(r.disassembly == dir / "a" / "kernel.dis");
  CHECK(runner.command_line(1) == "/usr/bin/objdump -d --no-show-raw-insn " + r.artifact.string());

  Builder without(m, paths, Toolchain{"c++", "g++ 12", ""}, runner);
  auto s = without.build(m.dir, {}, dir / "b", nullptr);
  REQUIRE(s.ok);
  CHECK(s.disassembly.empty());
  CHECK(s.disassembly_note == "no disassembler installed");

  // A disassembler that fails leaves no file and says why.
  runner.on("objdump", FakeProcessRunner::exited(1, "", "objdump: kernel.so: file format not recognized"));
  auto t = with.build(m.dir, {}, dir / "c", nullptr);
  REQUIRE(t.ok);
  CHECK(t.disassembly.empty());
  CHECK(t.disassembly_note.find("file format not recognized") != std::string::npos);
}
