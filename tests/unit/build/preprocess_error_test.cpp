// Builder::preprocess when the compiler refuses the source: the first line of
// the error text (what a build_error's reason shows) is the compiler's error.
#include "autoresearch/build/builder.h"

#include "catch.h"
#include "unit/fakes/fake_process.h"

using namespace ar;

namespace {

Manifest cpu_manifest() {
  Manifest m;
  m.name = "toy";
  m.backend = Backend::Cpu;
  m.kernel_source = "kernel.cpp";
  m.build.timeout_s = 10;
  return m;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

TEST_CASE("a source that does not preprocess reports the compiler's first error first") {
  FakeProcessRunner runner;
  runner.on("c++", FakeProcessRunner::exited(1, "",
                                             "In file included from kernel.cpp:3:\n"
                                             "kernel.cpp:10:2: error: #error planted build failure\n"
                                             "   10 | #error planted build failure\n"
                                             "      |  ^~~~~\n"));
  Manifest m = cpu_manifest();
  Paths paths;
  Builder b(m, paths, Toolchain{"c++", "fake"}, runner);
  std::string errors;
  CHECK_FALSE(b.preprocess("/pkg", {}, &errors, nullptr));
  CHECK(first_line(errors) == "kernel.cpp:10:2: error: #error planted build failure");
  CHECK(errors.find("preprocessor exit status 1") != std::string::npos);   // still there, after
  CHECK(errors.find("^~~~~") != std::string::npos);                        // and the full text
}

TEST_CASE("without an error line, the first thing the compiler said leads") {
  FakeProcessRunner runner;
  runner.on("c++", FakeProcessRunner::exited(1, "", "\ncc1plus: out of memory allocating 42 bytes\n"));
  Manifest m = cpu_manifest();
  Paths paths;
  Builder b(m, paths, Toolchain{"c++", "fake"}, runner);
  std::string errors;
  CHECK_FALSE(b.preprocess("/pkg", {}, &errors, nullptr));
  CHECK(first_line(errors) == "cc1plus: out of memory allocating 42 bytes");
}
