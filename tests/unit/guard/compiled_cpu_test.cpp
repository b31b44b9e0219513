// The compiled-code scan on shared objects built by the real host compiler with
// the driver's flags (Builder: -shared -std=c++20 -O2 -march=native -fPIC), and
// disassembled by objdump when it is installed: cheats whose source the
// preprocessed-source scan cannot read or would pass are caught in what was
// built, and honest kernels (scratch memory, math, std::vector) pass.
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

bool have(const char* tool) { return std::system((std::string("command -v ") + tool + " > /dev/null 2>&1").c_str()) == 0; }

std::string describe(const ar::GuardResult& r) {
  std::string s;
  for (const auto& f : r.findings) s += f.rule + " @ " + f.where + ": " + f.excerpt + "\n";
  return s.empty() ? "(no findings)" : s;
}

// Builds `source` as the driver builds a CPU candidate and scans it.
ar::GuardResult build_and_scan(const std::string& source) {
  ar::TempDir dir;
  std::ofstream(dir / "kernel.cpp") << source;
  const std::string cmd = "cd '" + dir.path().string() +
                          "' && c++ -shared -std=c++20 -O2 -march=native -fPIC -Wall kernel.cpp -o kernel.so 2> err.txt";
  if (std::system(cmd.c_str()) != 0) FAIL("does not compile:\n" << source << "\n" << slurp(dir / "err.txt"));
  ar::CompiledCode code{dir / "kernel.so", {}, {}};
  if (have("objdump")) {
    const std::string dis = "cd '" + dir.path().string() + "' && objdump -d --no-show-raw-insn kernel.so > kernel.dis";
    REQUIRE(std::system(dis.c_str()) == 0);
    code.disassembly = dir / "kernel.dis";
  }
  return ar::scan_compiled_code(code, ar::Backend::Cpu);
}

bool finds(const ar::GuardResult& r, const std::string& rule, const std::string& in_excerpt) {
  for (const auto& f : r.findings)
    if (f.rule == rule && f.excerpt.find(in_excerpt) != std::string::npos) return true;
  return false;
}

const char* kHonest = R"SRC(#include <algorithm>
#include <cmath>
#include <vector>
struct P { const float* a; const float* b; float* c; int m, n, k, lda, ldb, ldc; };
extern "C" void ar_kernel(const void* params) {
  const P& p = *static_cast<const P*>(params);
  std::vector<float> row(static_cast<size_t>(p.n));
  float stack[64];
  for (int i = 0; i < p.m; ++i) {
    std::fill(row.begin(), row.end(), 0.0f);
    for (int k = 0; k < p.k; ++k)
      for (int j = 0; j < p.n; ++j) row[j] += p.a[i * p.lda + k] * p.b[k * p.ldb + j];
    for (int j = 0; j < p.n; ++j) stack[j % 64] = std::sqrt(std::fabs(row[j])) + std::exp(-row[j]) * 0.0f;
    std::copy(row.begin(), row.end(), p.c + i * p.ldc);
    p.c[i * p.ldc] += stack[0] * 0.0f;
  }
}
)SRC";

}  // namespace

TEST_CASE("compiled scan, CPU: an honest kernel with heap and stack scratch and libm passes") {
  auto r = build_and_scan(kHonest);
  INFO(describe(r));
  CHECK(r.pass);
}

TEST_CASE("compiled scan, CPU: threads, timers and the outside world show up as imports") {
  struct Case {
    const char* name;
    const char* rule;
    const char* excerpt;
    std::string source;
  };
  const std::vector<Case> cases = {
      {"std::thread", "host-thread", "thread",
       "#include <thread>\nextern \"C\" void ar_kernel(const void*) { std::thread t([] {}); t.join(); }\n"},
      {"pthread_create through a pasted name", "host-thread", "pthread_create",
       "#include <pthread.h>\n#define CAT(a, b) a##b\nstatic void* w(void*) { return nullptr; }\n"
       "extern \"C\" void ar_kernel(const void*) { pthread_t t; CAT(pthread_, create)(&t, nullptr, w, nullptr); "
       "pthread_join(t, nullptr); }\n"},
      {"std::chrono", "timer", "chrono",
       "#include <chrono>\nextern \"C\" void ar_kernel(const void* p) { if (std::chrono::steady_clock::now()"
       ".time_since_epoch().count() == 0) *(int*)const_cast<void*>(p) = 0; }\n"},
      {"getenv", "io", "getenv",
       "#include <cstdlib>\nextern \"C\" void ar_kernel(const void* p) { if (std::getenv(\"X\")) "
       "*(int*)const_cast<void*>(p) = 0; }\n"},
      {"dl_iterate_phdr (a way to find any function without naming it)", "io", "dl_iterate_phdr",
       "#include <link.h>\nstatic int cb(dl_phdr_info*, size_t, void*) { return 1; }\n"
       "extern \"C\" void ar_kernel(const void*) { dl_iterate_phdr(cb, nullptr); }\n"},
      {"rand", "import", "rand",
       "#include <cstdlib>\nextern \"C\" void ar_kernel(const void* p) { *(int*)const_cast<void*>(p) = std::rand(); }\n"},
  };
  for (const auto& c : cases) {
    auto r = build_and_scan(c.source);
    INFO(c.name << "\n" << describe(r));
    CHECK_FALSE(r.pass);
    CHECK(finds(r, c.rule, c.excerpt));
    CHECK(r.reason().rfind("guard: kernel.so ", 0) == 0);
  }
}

TEST_CASE("compiled scan, CPU: state and load-time code the source scan would pass") {
  SECTION("a const global object with a constructor runs code at load time") {
    auto r = build_and_scan(
        "#include <cstdlib>\nstruct Warm { Warm() : n(std::atoi(\"3\")) {} int n; };\nconst Warm g_warm;\n"
        "extern \"C\" void ar_kernel(const void* p) { *(int*)const_cast<void*>(p) = g_warm.n; }\n");
    INFO(describe(r));
    CHECK(finds(r, "constructor", ".init_array runs _GLOBAL__sub_I"));
  }
  SECTION("__attribute__((constructor)), however spelled") {
    auto r = build_and_scan("#define EARLY __attribute__((constructor))\nstatic int v;\nEARLY static void early() { v = 1; }\n"
                            "extern \"C\" void ar_kernel(const void* p) { *(int*)const_cast<void*>(p) = v; }\n");
    INFO(describe(r));
    CHECK(finds(r, "constructor", ".init_array"));
  }
  SECTION("a function-local static with a run-time initialiser") {
    auto r = build_and_scan("struct P { int m; };\nextern \"C\" void ar_kernel(const void* params) {\n"
                            "  const P& p = *static_cast<const P*>(params);\n  static const int first_m = p.m;\n"
                            "  const_cast<P&>(p).m = first_m;\n}\n");
    INFO(describe(r));
    CHECK(finds(r, "static-cache", "__cxa_guard_acquire"));
  }
  SECTION("thread-local storage") {
    auto r = build_and_scan("thread_local int calls;\nextern \"C\" void ar_kernel(const void* p) { "
                            "*(int*)const_cast<void*>(p) = ++calls; }\n");
    INFO(describe(r));
    CHECK(finds(r, "static-cache", "thread-local storage"));
  }
}

TEST_CASE("compiled scan, CPU: instructions spelled as bytes are still instructions") {
  if (!have("objdump")) {
    WARN("objdump not installed: skipping the disassembly test");
    return;
  }
  auto r = build_and_scan(
      "extern \"C\" void ar_kernel(const void* p) {\n  unsigned lo, hi;\n"
      "  asm volatile(\".byte 0x0f, 0x31\" : \"=a\"(lo), \"=d\"(hi));\n"   // rdtsc
      "  *(unsigned*)const_cast<void*>(p) = lo ^ hi;\n}\n");
  INFO(describe(r));
  CHECK(finds(r, "timer", "rdtsc"));
  auto s = build_and_scan("extern \"C\" void ar_kernel(const void* p) {\n  long r;\n"
                          "  asm volatile(\".byte 0x0f, 0x05\" : \"=a\"(r) : \"a\"(39L) : \"rcx\", \"r11\");\n"  // syscall getpid
                          "  *(long*)const_cast<void*>(p) = r;\n}\n");
  INFO(describe(s));
  CHECK(finds(s, "io", "syscall"));
}
