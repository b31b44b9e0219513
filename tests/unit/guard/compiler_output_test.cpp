// The scan on real preprocessor output: g++ -E on a host kernel that includes
// <thread>, and nvcc -E on a device kernel that includes <cuda_runtime.h>.
// Headers full of threads, timers and statics must not count; the candidate's
// own use of them must.
#include "autoresearch/guard/guard.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "catch.h"
#include "unit/fakes/temp_dir.h"
#include "unit/guard/guard_fixtures.h"

using namespace guard_test;
using ar::Backend;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `command` in `dir` (relative file names, as a build would); returns the
// preprocessed text, or "" with the compiler's errors in *err.
std::string preprocess(const fs::path& dir, const std::string& command, std::string* err) {
  std::string full = "cd '" + dir.string() + "' && " + command + " -o out.ii 2> err.txt";
  int rc = std::system(full.c_str());
  *err = slurp(dir / "err.txt");
  return rc == 0 ? slurp(dir / "out.ii") : "";
}

const char* kCpuIncludes = "#include <algorithm>\n#include <cstddef>\n#include <thread>\n#include <vector>\n";

std::string nvcc_path() {
  if (std::system("command -v nvcc > /dev/null 2>&1") == 0) return "nvcc";
  return "";
}

}  // namespace

TEST_CASE("g++ -E: <thread> in the headers is fine, std::thread in the kernel is not") {
  ar::TempDir dir;
  const fs::path kernel = dir / "kernel.cpp";

  std::ofstream(kernel) << kCpuIncludes << kCleanCpuMatmul;
  std::string err;
  std::string clean = preprocess(dir.path(), "g++ -std=c++20 -E kernel.cpp", &err);
  INFO(err);
  REQUIRE_FALSE(clean.empty());
  auto ok = ar::scan_preprocessed_source(clean, {kernel}, Backend::Cpu);
  INFO(describe(ok));
  CHECK(ok.pass);

  std::ofstream(kernel) << kCpuIncludes
                        << "void rows(const void* p, int part);\n"                        // 5
                        << "extern \"C\" void ar_kernel(const void* params) {\n"          // 6
                        << "  std::thread helper(rows, params, 1);\n"                     // 7
                        << "  rows(params, 0);\n"                                         // 8
                        << "  helper.join();\n"                                           // 9
                        << "}\n";
  std::string cheat = preprocess(dir.path(), "g++ -std=c++20 -E kernel.cpp", &err);
  REQUIRE_FALSE(cheat.empty());
  auto bad = ar::scan_preprocessed_source(cheat, {kernel}, Backend::Cpu);
  INFO(describe(bad));
  REQUIRE(bad.findings.size() == 1);
  CHECK(bad.findings[0].rule == "host-thread");
  CHECK(bad.findings[0].where == "kernel.cpp:7");
  CHECK(bad.reason() == "guard: kernel.cpp:7 starts host threads (std::thread)");
}

TEST_CASE("g++ -E: a protected package header is not scanned, a cheat inside the kernel is") {
  ar::TempDir dir;
  std::ofstream(dir / "problem.h") << "#pragma once\nstatic int harness_state;\n#include <ctime>\n"
                                   << "inline long stamp() { return time(nullptr); }\n";
  std::ofstream(dir / "kernel.cpp") << "#include \"problem.h\"\n"
                                    << "extern \"C\" void ar_kernel(const void* params) {\n"
                                    << "  static long last = 0;\n"
                                    << "  last = stamp();\n"
                                    << "}\n";
  std::string err;
  std::string text = preprocess(dir.path(), "g++ -std=c++20 -E -I. kernel.cpp", &err);
  INFO(err);
  REQUIRE_FALSE(text.empty());
  auto r = ar::scan_preprocessed_source(text, {dir / "kernel.cpp"}, Backend::Cpu);
  INFO(describe(r));
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].rule == "static-cache");
  CHECK(r.findings[0].where == "kernel.cpp:3");
}

TEST_CASE("g++ -E: line directives written into the kernel are caught") {
  // Each shape makes the preprocessor attribute the next line to another file.
  const std::vector<std::pair<const char*, const char*>> shapes = {
      {"a forged include-enter marker", "# 1 \"/usr/include/c++/12/thread\" 1 3\n"},
      {"#line spliced over two lines", "#\\\nline 40 \"/usr/include/stdio.h\"\n"},
      {"the %: digraph", "%:line 40 \"/usr/include/stdio.h\"\n"},
      {"#line behind a comment", "#/* hi */line 40 \"/usr/include/stdio.h\"\n"},
  };
  for (const auto& [name, directive] : shapes) {
    ar::TempDir dir;
    std::ofstream(dir / "kernel.cpp") << "int ok_before;\n" << directive << "static float cache[1024];\n";
    std::string err;
    std::string text = preprocess(dir.path(), "g++ -std=c++20 -E kernel.cpp", &err);
    INFO(name << "\n" << err);
    REQUIRE_FALSE(text.empty());
    auto r = ar::scan_preprocessed_source(text, {dir / "kernel.cpp"}, Backend::Cpu);
    INFO(describe(r));
    CHECK_FALSE(r.pass);
    CHECK(has_rule(r, "line-directive"));
    bool on_line_2 = false;
    for (const auto& f : r.findings)
      on_line_2 = on_line_2 || (f.rule == "line-directive" && f.where == "kernel.cpp:2");
    CHECK(on_line_2);
  }
}

TEST_CASE("nvcc -E: the clean kernel passes, a timer or a __device__ cache does not") {
  const std::string nvcc = nvcc_path();
  if (nvcc.empty()) {
    WARN("nvcc not on PATH: skipping the nvcc -E test");
    return;
  }
  ar::TempDir dir;
  std::ofstream(dir / "problem.h") << "#pragma once\n#include <cuda_bf16.h>\n" << kProblemHeader;
  const std::string head = "#include <cuda_runtime.h>\n#include <cuda_bf16.h>\n#include \"problem.h\"\n";
  const std::string command = nvcc + " -E -arch=sm_90 -x cu -std=c++17 -I. kernel.cu";
  const fs::path kernel = dir / "kernel.cu";

  std::ofstream(kernel) << head << kCleanCudaKernel;
  std::string err;
  std::string clean = preprocess(dir.path(), command, &err);
  INFO(err);
  REQUIRE_FALSE(clean.empty());
  auto ok = ar::scan_preprocessed_source(clean, {kernel}, Backend::Cuda);
  INFO(describe(ok));
  CHECK(ok.pass);

  std::ofstream(kernel) << head
                        << "extern \"C\" __global__ void ar_stage0(Params p) {\n"  // 4
                        << "  const long long t0 = clock64();\n"                   // 5
                        << "  if (clock64() - t0 < 1000) p.lse[threadIdx.x] = 0.f;\n"
                        << "}\n";
  std::string timer = preprocess(dir.path(), command, &err);
  REQUIRE_FALSE(timer.empty());
  auto t = ar::scan_preprocessed_source(timer, {kernel}, Backend::Cuda);
  INFO(describe(t));
  REQUIRE_FALSE(t.findings.empty());
  CHECK(t.findings[0].rule == "timer");
  CHECK(t.findings[0].where == "kernel.cu:5");

  std::ofstream(kernel) << head
                        << "__device__ float g_result_cache[1 << 16];\n"           // 4
                        << "__device__ int g_filled;\n"                            // 5
                        << "extern \"C\" __global__ void ar_stage0(Params p) {\n"
                        << "  if (g_filled) { p.lse[threadIdx.x] = g_result_cache[threadIdx.x]; return; }\n"
                        << "}\n";
  std::string cache = preprocess(dir.path(), command, &err);
  REQUIRE_FALSE(cache.empty());
  auto c = ar::scan_preprocessed_source(cache, {kernel}, Backend::Cuda);
  INFO(describe(c));
  REQUIRE(c.findings.size() == 2);
  CHECK(c.findings[0].rule == "static-cache");
  CHECK(c.findings[0].where == "kernel.cu:4");
  CHECK(c.findings[1].where == "kernel.cu:5");
}
