// The compiled-code scan on device code built by the real nvcc, the way the
// builder builds a candidate (-cubin --keep: the PTX stays beside the cubin).
// Tagged [cuda-compile] and hidden from the plain unit run: ctest runs them as
// guard_cuda_compile (label cuda-compile) where nvcc is installed; without
// nvcc each test says so and passes.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "autoresearch/guard/guard.h"
#include "catch.h"
#include "unit/fakes/temp_dir.h"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string nvcc() {
  if (std::system("command -v nvcc > /dev/null 2>&1") == 0) return "nvcc";
  if (std::system("test -x /usr/local/cuda/bin/nvcc") == 0) return "/usr/local/cuda/bin/nvcc";
  return "";
}

std::string describe(const ar::GuardResult& r) {
  std::string s;
  for (const auto& f : r.findings) s += f.rule + " @ " + f.where + ": " + f.excerpt + "\n";
  return s.empty() ? "(no findings)" : s;
}

struct Built {
  bool compiled = false;     // nvcc exited 0 and wrote the cubin
  std::string errors;
  ar::GuardResult scan;
};

// nvcc -cubin --keep, then the scan of whatever it left (the PTX even when
// ptxas failed), exactly as build_queue.cpp does.
Built build(const std::string& source, const std::string& extra = "") {
  Built b;
  ar::TempDir dir;
  std::ofstream(dir / "kernel.cu") << source;
  const std::string cmd = "cd '" + dir.path().string() + "' && " + nvcc() + " -cubin -arch=sm_90 -O3 " + extra +
                          " --keep --keep-dir . kernel.cu -o kernel.cubin > err.txt 2>&1";
  b.compiled = std::system(cmd.c_str()) == 0 && fs::exists(dir / "kernel.cubin");
  b.errors = slurp(dir / "err.txt");
  ar::CompiledCode code;
  if (b.compiled) code.binary = dir / "kernel.cubin";
  if (fs::exists(dir / "kernel.ptx")) code.ptx = dir / "kernel.ptx";
  b.scan = ar::scan_compiled_code(code, ar::Backend::Cuda);
  return b;
}

bool finds(const ar::GuardResult& r, const std::string& rule, const std::string& where_prefix,
           const std::string& in_excerpt) {
  for (const auto& f : r.findings)
    if (f.rule == rule && f.where.rfind(where_prefix, 0) == 0 && f.excerpt.find(in_excerpt) != std::string::npos)
      return true;
  return false;
}

#define REQUIRE_NVCC()                                           \
  if (nvcc().empty()) {                                          \
    WARN("nvcc not installed: skipping the compiled-code test"); \
    return;                                                      \
  }

}  // namespace

TEST_CASE("cubin scan: an honest kernel (assert, dynamic shared memory, a const table, math) passes",
          "[cuda-compile][.]") {
  REQUIRE_NVCC();
  auto b = build(R"SRC(#include <cassert>
__device__ const int kTable[4] = {1, 2, 3, 4};
__constant__ float kScale[2] = {0.5f, 2.0f};
extern "C" __global__ void ar_stage0(float* out, int n) {
  extern __shared__ float smem[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  smem[threadIdx.x] = i < n ? out[i] * kTable[i & 3] * kScale[i & 1] : 0.f;
  __syncthreads();
  assert(n >= 0);
  float v = smem[threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if (i < n) out[i] = sqrtf(fabsf(v)) + __expf(v) + atomicAdd(out + n, 0.f);
}
)SRC");
  INFO(b.errors << describe(b.scan));
  REQUIRE(b.compiled);
  CHECK(b.scan.pass);
}

TEST_CASE("cubin scan: clock reads, whatever the source called them", "[cuda-compile][.]") {
  REQUIRE_NVCC();
  struct Case {
    const char* name;
    const char* source;
  };
  const Case cases[] = {
      {"clock64()",
       "extern \"C\" __global__ void ar_stage0(float* out) {\n  long long t0 = clock64();\n  out[threadIdx.x] = 1.f;\n"
       "  if (clock64() - t0 > 100) out[0] = 2.f;\n}\n"},
      {"clock()", "extern \"C\" __global__ void ar_stage0(float* out) { out[0] = (float)clock(); }\n"},
      {"%globaltimer through a token-pasted asm string",
       "#define STR(x) #x\n#define SREG(a, b) \"mov.u64 %0, %%\" STR(a##b) \";\"\n"
       "extern \"C\" __global__ void ar_stage0(float* out) {\n  unsigned long long t;\n"
       "  asm volatile(SREG(global, timer) : \"=l\"(t));\n  out[threadIdx.x] = (float)t;\n}\n"},
      {"%clock through adjacent string literals",
       "extern \"C\" __global__ void ar_stage0(float* out) {\n  unsigned t;\n"
       "  asm volatile(\"mov.u32 %0, %%cl\" \"ock;\" : \"=r\"(t));\n  out[0] = (float)t;\n}\n"},
  };
  for (const auto& c : cases) {
    auto b = build(c.source);
    INFO(c.name << "\n" << b.errors << describe(b.scan));
    REQUIRE(b.compiled);
    CHECK_FALSE(b.scan.pass);
    CHECK(finds(b.scan, "timer", "kernel.ptx:", "%"));
  }
}

TEST_CASE("cubin scan: printf and the device heap, in the PTX and in the cubin's symbols", "[cuda-compile][.]") {
  REQUIRE_NVCC();
  auto p = build("#include <cstdio>\nextern \"C\" __global__ void ar_stage0(float* out) { printf(\"%d\\n\", "
                 "threadIdx.x); out[0] = 1.f; }\n");
  INFO(p.errors << describe(p.scan));
  REQUIRE(p.compiled);
  CHECK(finds(p.scan, "io", "kernel.ptx:", "vprintf"));
  CHECK(finds(p.scan, "io", "kernel.cubin", "undefined symbol vprintf"));

  auto m = build("extern \"C\" __global__ void ar_stage0(float* out) {\n  float* keep = (float*)malloc(64);\n"
                 "  keep[0] = out[0];\n  out[1] = keep[0];\n  free(keep);\n}\n");
  INFO(m.errors << describe(m.scan));
  REQUIRE(m.compiled);
  CHECK(finds(m.scan, "static-cache", "kernel.ptx:", "malloc"));
  CHECK(finds(m.scan, "static-cache", "kernel.cubin", "undefined symbol free"));
}

TEST_CASE("cubin scan: device-side launches are rejected whether or not nvcc builds them", "[cuda-compile][.]") {
  REQUIRE_NVCC();
  SECTION("<<<>>> in a kernel: nvcc refuses it without -rdc, and the source scan names it") {
    const std::string source = "__global__ void child(float* out) { out[threadIdx.x] = 1.f; }\n"
                               "extern \"C\" __global__ void ar_stage0(float* out) { if (threadIdx.x == 0) "
                               "child<<<1, 32>>>(out); }\n";
    auto b = build(source);
    INFO(b.errors);
    CHECK_FALSE(b.compiled);
    CHECK(b.errors.find("separate compilation") != std::string::npos);
    // What the loop sees first: the preprocessed-source scan.
    ar::TempDir dir;
    std::ofstream(dir / "kernel.cu") << source;
    const std::string cmd = "cd '" + dir.path().string() + "' && " + nvcc() + " -E -arch=sm_90 kernel.cu -o kernel.ii";
    REQUIRE(std::system(cmd.c_str()) == 0);
    auto s = ar::scan_preprocessed_source(slurp(dir / "kernel.ii"), {dir / "kernel.cu"}, ar::Backend::Cuda);
    INFO(describe(s));
    CHECK_FALSE(s.pass);
    bool launch = false;
    for (const auto& f : s.findings) launch = launch || f.rule == "stream-graph";
    CHECK(launch);
  }
  const std::string direct = R"SRC(#include <cuda_runtime.h>
extern "C" __device__ cudaError_t cudaLaunchDevice(void*, void*, dim3, dim3, unsigned, cudaStream_t);
extern "C" __device__ void* cudaGetParameterBuffer(size_t, size_t);
__global__ void child(float* out) { out[threadIdx.x] = 1.f; }
extern "C" __global__ void ar_stage0(float* out) {
  void* buf = cudaGetParameterBuffer(8, 8);
  *(float**)buf = out;
  cudaLaunchDevice((void*)child, buf, dim3(1), dim3(32), 0, 0);
}
)SRC";
  SECTION("the device runtime called directly: ptxas cannot link it, the kept PTX still names it") {
    auto b = build(direct);
    INFO(b.errors << describe(b.scan));
    CHECK_FALSE(b.compiled);
    CHECK(b.errors.find("Unresolved extern function") != std::string::npos);
    CHECK_FALSE(b.scan.pass);
    CHECK(finds(b.scan, "stream-graph", "kernel.ptx:", "LaunchDevice"));
    CHECK(finds(b.scan, "stream-graph", "kernel.ptx:", "ParameterBuffer"));
  }
  SECTION("with -rdc=true the cubin builds, relocatable, with the launch undefined") {
    auto b = build(direct, "-rdc=true");
    INFO(b.errors << describe(b.scan));
    REQUIRE(b.compiled);
    CHECK(finds(b.scan, "stream-graph", "kernel.cubin", "LaunchDevice"));
    CHECK(finds(b.scan, "stream-graph", "kernel.ptx:", "LaunchDevice"));
  }
}

TEST_CASE("cubin scan: the shipped sparse_mla kernel raises no false alarm", "[cuda-compile][.]") {
  REQUIRE_NVCC();
  const fs::path pkg = fs::path(AR_TEST_SOURCE_DIR) / "kernels" / "sparse_mla";
  ar::TempDir dir;
  const std::string cmd = "cd '" + dir.path().string() + "' && " + nvcc() +
                          " -cubin --keep --keep-dir . -arch=sm_90 -O3 -std=c++17 -DHEADS_PER_BLOCK=64 "
                          "-DKEYS_PER_TILE=32 -DTHREADS=256 -DSPLIT_WAVES=1 -DKV_STAGES=1 -DLDMATRIX=1 -I" +
                          (fs::path(AR_TEST_SOURCE_DIR) / "include").string() + " -I" + pkg.string() + " " +
                          (pkg / "kernel.cu").string() + " -o kernel.cubin > err.txt 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  auto r = ar::scan_compiled_code({dir / "kernel.cubin", dir / "kernel.ptx", {}}, ar::Backend::Cuda);
  INFO(slurp(dir / "err.txt") << describe(r));
  CHECK(r.pass);
}

TEST_CASE("cubin scan: the SASS shows the clock read when cuobjdump is installed", "[cuda-compile][.]") {
  REQUIRE_NVCC();
  std::string cuobjdump;
  for (const char* c : {"cuobjdump", "/usr/local/cuda/bin/cuobjdump"})
    if (cuobjdump.empty() && std::system((std::string("command -v ") + c + " > /dev/null 2>&1").c_str()) == 0)
      cuobjdump = c;
  if (cuobjdump.empty()) {
    WARN("cuobjdump not installed (it ships with the toolkit on GPU machines): skipping the SASS test");
    return;
  }
  ar::TempDir dir;
  std::ofstream(dir / "kernel.cu") << "extern \"C\" __global__ void ar_stage0(long long* out) { out[0] = clock64(); }\n"
                                   << "extern \"C\" __global__ void ar_stage1(unsigned long long* out) {\n"
                                   << "  unsigned long long t;\n  asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));\n"
                                   << "  out[0] = t;\n}\n"
                                   << "extern \"C\" __global__ void honest(float* out) { out[threadIdx.x] *= 2.f; }\n";
  const std::string d = "cd '" + dir.path().string() + "' && ";
  REQUIRE(std::system((d + nvcc() + " -cubin -arch=sm_90 -O3 kernel.cu -o kernel.cubin").c_str()) == 0);
  REQUIRE(std::system((d + cuobjdump + " -sass kernel.cubin > kernel.sass").c_str()) == 0);
  auto r = ar::scan_compiled_code({{}, {}, dir / "kernel.sass"}, ar::Backend::Cuda);
  INFO(slurp(dir / "kernel.sass") << describe(r));
  CHECK(finds(r, "timer", "kernel.sass:", "ar_stage0: "));
  CHECK(finds(r, "timer", "kernel.sass:", "ar_stage1: "));
  for (const auto& f : r.findings) CHECK(f.excerpt.rfind("honest:", 0) != 0);
}
