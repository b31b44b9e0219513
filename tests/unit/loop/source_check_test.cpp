// check_package_source: the guard on a package's current source, as `run` (on
// the starting kernel), `verify` and `bench` apply it (issue 8 bug 3, issue 7).
#include "autoresearch/loop/source_check.h"

#include <fstream>

#include "catch.h"
#include "unit/fakes/fake_process.h"
#include "unit/fakes/temp_dir.h"

using namespace ar;
namespace fs = std::filesystem;

namespace {

struct Package {
  TempDir dir;
  Manifest m;
  FakeProcessRunner compiler;
  Paths paths;
  std::string source;

  explicit Package(std::string kernel_source) : source(std::move(kernel_source)) {
    m.name = "toy";
    m.dir = dir.path();
    m.backend = Backend::Cpu;
    m.kernel_source = "kernel.cpp";
    m.tunables_file = "tunables.json";
    m.editable = {"kernel.cpp"};
    m.build.timeout_s = 10;
    std::ofstream(dir / "kernel.cpp") << source;
    // -E: the source under a line marker for the editable file, as gcc writes it.
    compiler.on("c++", [this](const ProcessSpec& s) {
      return FakeProcessRunner::exited(0, "# 1 \"" + s.argv.back() + "\"\n" + source);
    });
  }
  SourceCheck check(const std::vector<std::string>& changed = {}) {
    Builder b(m, paths, Toolchain{"c++", "fake"}, compiler);
    return check_package_source(b, m, dir.path(), "kernels/toy", changed, {}, nullptr);
  }
};

}  // namespace

TEST_CASE("a clean kernel passes the guard, and says so") {
  Package p("extern \"C\" void ar_kernel(const void*) {}\n");
  SourceCheck c = p.check();
  CHECK(c.pass());
  CHECK(c.summary() == "guard: scope and source scan passed");
}

TEST_CASE("a std::getenv at file scope is a finding naming the file and line") {
  Package p("#include <cstdlib>\n"
            "\n"
            "const char* const kHome = std::getenv(\"HOME\");\n"
            "extern \"C\" void ar_kernel(const void*) {}\n");
  SourceCheck c = p.check();
  REQUIRE(c.status == SourceCheck::Status::Finding);
  CHECK(c.finding.find("kernel.cpp:3") == 0);
  CHECK(c.finding.find("getenv") != std::string::npos);
  CHECK(c.summary() == "guard: " + c.finding);
}

TEST_CASE("a changed protected file is a scope finding") {
  Package p("extern \"C\" void ar_kernel(const void*) {}\n");
  CHECK(p.check({"kernels/toy/kernel.cpp", "kernels/toy/tunables.json"}).pass());
  SourceCheck c = p.check({"kernels/toy/kernel.cpp", "kernels/toy/problem.cpp"});
  REQUIRE(c.status == SourceCheck::Status::Finding);
  CHECK(c.finding.find("kernels/toy/problem.cpp is outside the editable files") == 0);
}

TEST_CASE("a source that does not preprocess is reported with the compiler's message") {
  Package p("");
  p.compiler.on("c++", FakeProcessRunner::exited(1, "", "kernel.cpp:1:2: error: #error nope\n"));
  SourceCheck c = p.check();
  CHECK(c.status == SourceCheck::Status::DoesNotPreprocess);
  CHECK(c.finding.find("kernel.cpp:1:2: error: #error nope") == 0);
}
