// What the scan reads (only editable lines, wherever the markers point) and what
// it must leave alone (normal kernel code).
#include "autoresearch/guard/guard.h"

#include <fstream>

#include "catch.h"
#include "unit/fakes/temp_dir.h"
#include "unit/guard/guard_fixtures.h"

using namespace guard_test;
using ar::Backend;

TEST_CASE("the clean CUDA kernel passes, as written and as nvcc -E prints it") {
  auto r = scan(kCleanCudaKernel, Backend::Cuda);
  INFO(describe(r));
  CHECK(r.pass);
  CHECK(r.reason().empty());

  auto n = scan(as_nvcc_prints_it(kCleanCudaKernel), Backend::Cuda);
  INFO(describe(n));
  CHECK(n.pass);
}

TEST_CASE("the clean CPU matmul passes") {
  auto r = scan(kCleanCpuMatmul, Backend::Cpu);
  INFO(describe(r));
  CHECK(r.pass);
}

TEST_CASE("normal code that only looks like a forbidden thing is not flagged") {
  const char* body = R"(struct Cfg { int clock; float time; int thread; };
static inline int twice(int x) { return 2 * x; }
static int helper(int);
static float scale(float v, float s) { return v * s; }
template <typename T> static T pick(T a, T b) { return a < b ? a : b; }
__device__ __forceinline__ float f(float x) { return x; }
static constexpr float kTable[3] = {1.f, 2.f, 3.f};
static const float* const kRow = kTable;
constexpr int kShift = 3;
using Row = std::vector<std::vector<std::array<int, 3>>>;
enum class Mode : int { Fast, Slow };
struct Tile { int rows, cols; static constexpr int kMax = 8; static int count(const Tile&); };
extern "C" __global__ void ar_stage0(Params p);
static const float kBias[4] = {0.f, 0.f, 0.f, 0.f};
auto relu = [](float x) { return x > 0.f ? x : 0.f; };
__device__ float2 operator+(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ void store(float* dst, float v) { asm volatile("st.global.f32 [%0], %1;" ::"l"(dst), "f"(v)); }
__device__ float first(const Params& p) { return *const_cast<float*>(p.lse) + kBias[0]; }
__global__ void k(Cfg* cfg, int clock_rate, const float* time_series, int n) {
  __shared__ float tile[32][33];
  extern __shared__ float dyn[];
  static __shared__ int flag;
  float time = cfg->time + static_cast<float>(cfg->clock);
  int clock_now = cfg[0].clock, thread = threadIdx.x;
  auto l = [&](int i) mutable { return time_series[i] * time; };
  unsigned v = 1u << kShift;
  v = v >> 1;
  static_assert(sizeof(float) == 4, "no clock64(), getenv() or std::thread here");
  const char* msg = "fopen(\"x\") and %globaltimer in a plain string";
#pragma unroll 4
  for (int i = 0; i < n; ++i) tile[i % 32][i % 33] = l(i) + clock_rate + v + clock_now + thread;
  float* w = (float*)dyn;
  if (n * 2) w[0] = kBias[1] + relu(w[1]);
  (void)msg; (void)flag;
}
)";
  auto r = scan(body, Backend::Cuda);
  INFO(describe(r));
  CHECK(r.pass);
}

TEST_CASE("forbidden tokens in system and protected headers are not the candidate's") {
  // The fixture's system header has std::thread, clock64, pthread_create, a
  // constructor, getenv, cudaStreamCreate, #pragma omp parallel, a static int and
  // a %globaltimer asm; the protected header a static int. None count.
  auto r = scan("extern \"C\" __global__ void ar_stage0(Params p) {}\n");
  INFO(describe(r));
  CHECK(r.pass);

  // The same text inside the editable file is caught, on its own lines.
  std::string body = std::string("int ok;\n") + kSystemHeader;
  auto bad = scan(body);
  INFO(describe(bad));
  CHECK_FALSE(bad.pass);
  for (const char* rule : {"host-thread", "timer", "static-cache", "constructor", "io", "stream-graph",
                           "cuda-runtime"})
    CHECK(has_rule(bad, rule));
}

TEST_CASE("findings name the editable file and its own line numbers") {
  std::string body =
      "__global__ void k(float* out) {\n"  // 1
      "  out[0] = 1.f;\n"                  // 2
      "//@system\n"                        // 3: an include in the middle
      "  long long t = clock64();\n"       // 4
      "  out[1] = t;\n"                    // 5
      "}\n";
  auto r = scan(body);
  INFO(describe(r));
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].rule == "timer");
  CHECK(r.findings[0].where == "kernel.cu:4");
  CHECK(r.findings[0].excerpt == "clock64");
  CHECK(r.reason() == "guard: kernel.cu:4 uses a timer (clock64)");
}

TEST_CASE("markers that spell the editable path differently still count as editable") {
  const char* cheat = "__global__ void k(float* o) { o[0] = clock64(); }\n";
  for (const char* name : {"kernel.cu", "./kernel.cu", "pkg/kernel.cu", "../pkg/kernel.cu",
                           "/nonexistent/pkg/../pkg/kernel.cu", "/nonexistent//pkg/./kernel.cu"}) {
    Build b;
    b.editable_name = name;
    auto r = scan(cheat, Backend::Cuda, b);
    INFO(name << "\n" << describe(r));
    CHECK(has_rule(r, "timer"));
    CHECK_FALSE(has_rule(r, "scan-input"));
  }
}

TEST_CASE("a marker through a symlinked folder is the editable file") {
  ar::TempDir dir;
  std::filesystem::create_directories(dir / "real");
  std::ofstream(dir / "real/kernel.cu") << "int x;\n";
  std::filesystem::create_directory_symlink(dir / "real", dir / "link");
  std::string text = "# 1 \"" + (dir / "link/kernel.cu").string() + "\"\nlong long t = clock64();\n";
  auto r = ar::scan_preprocessed_source(text, {dir / "real/kernel.cu"}, Backend::Cuda);
  INFO(describe(r));
  CHECK(has_rule(r, "timer"));
}

TEST_CASE("a several-file candidate: every editable file is scanned, under its own name") {
  std::string text =
      "# 1 \"/nonexistent/pkg/kernel.cu\"\n"
      "# 1 \"/nonexistent/pkg/tile.cuh\" 1\n"
      "__device__ float g_cache[64];\n"
      "# 2 \"/nonexistent/pkg/kernel.cu\" 2\n"
      "__global__ void k() {}\n";
  auto r = ar::scan_preprocessed_source(text, {"/nonexistent/pkg/kernel.cu", "/nonexistent/pkg/tile.cuh"},
                                        Backend::Cuda);
  INFO(describe(r));
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].rule == "static-cache");
  CHECK(r.findings[0].where == "tile.cuh:1");
}

TEST_CASE("two translation units back to back (concatenated -E outputs) are two prologues, not a #line") {
  std::string once = preprocessed(kCleanCudaKernel);
  auto r = ar::scan_preprocessed_source(once + once, {kEditablePath}, Backend::Cuda);
  INFO(describe(r));
  CHECK(r.pass);
}

TEST_CASE("input the scan cannot attribute is refused, not passed") {
  SECTION("no line markers at all (-P)") {
    auto r = ar::scan_preprocessed_source("int cache;\n", {kEditablePath}, Backend::Cpu);
    CHECK_FALSE(r.pass);
    CHECK(has_rule(r, "scan-input"));
  }
  SECTION("markers that never name an editable file (wrong paths)") {
    auto r = ar::scan_preprocessed_source(preprocessed("int cache;\n"), {"/elsewhere/kernel.cpp"}, Backend::Cpu);
    CHECK_FALSE(r.pass);
    CHECK(has_rule(r, "scan-input"));
  }
}

TEST_CASE("the reason names the first finding and counts the rest") {
  std::string body =
      "__device__ int g_calls;\n"
      "__global__ void k(float* o) {\n"
      "  o[0] = clock64();\n"
      "  o[1] = clock64();\n"
      "}\n";
  auto r = scan(body);
  INFO(describe(r));
  REQUIRE(r.findings.size() == 3);
  CHECK(r.findings[0].where == "kernel.cu:1");
  CHECK(r.reason().rfind("guard: kernel.cu:1 keeps mutable state across calls (", 0) == 0);
  CHECK(r.reason().find(" and 2 more") != std::string::npos);

  ar::GuardResult empty;
  CHECK(empty.reason().empty());
}

TEST_CASE("an editable file that became a symbolic link is refused, whatever it points at") {
  ar::TempDir dir;
  std::ofstream(dir / "problem.cpp") << "int oracle(int x) { return x; }\n";
  std::filesystem::create_symlink("problem.cpp", dir / "kernel.cpp");
  // The preprocessor follows the link and names the editable path in its markers.
  const std::string text = "# 1 \"" + (dir / "kernel.cpp").string() + "\"\nint oracle(int x) { return x; }\n";
  auto r = ar::scan_preprocessed_source(text, {dir / "kernel.cpp"}, Backend::Cpu);
  INFO(describe(r));
  CHECK_FALSE(r.pass);
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].rule == "scope");
  CHECK(r.reason() == "guard: kernel.cpp is outside the editable files (now a symbolic link)");
}
