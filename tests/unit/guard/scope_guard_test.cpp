// check_scope: only the editable files and the tunables file may change.
#include "autoresearch/guard/guard.h"

#include <fstream>

#include "catch.h"
#include "unit/fakes/temp_dir.h"

namespace {

ar::Manifest manifest() {
  ar::Manifest m;
  m.name = "sparse_mla";
  m.backend = ar::Backend::Cuda;
  m.editable = {"kernel.cu", "tile.cuh"};
  m.kernel_source = "kernel.cu";
  m.tunables_file = "tunables.json";
  m.harness.sources = {"problem.cpp", "reference.cu"};
  return m;
}

const char* kPrefix = "kernels/sparse_mla";

ar::GuardResult check(const std::vector<std::string>& changed) {
  return ar::check_scope(manifest(), kPrefix, changed);
}

bool flags(const ar::GuardResult& r, const std::string& path) {
  for (const auto& f : r.findings)
    if (f.rule == "scope" && f.where == path) return true;
  return false;
}

}  // namespace

TEST_CASE("edits to the editable files and the tunables file pass") {
  auto r = check({"kernels/sparse_mla/kernel.cu", "kernels/sparse_mla/tile.cuh", "kernels/sparse_mla/tunables.json",
                  "./kernels/sparse_mla/kernel.cu", "kernels//sparse_mla/./tile.cuh"});
  CHECK(r.pass);
  CHECK(r.findings.empty());
  CHECK(check({}).pass);
}

TEST_CASE("protected files of the package are out of scope") {
  for (const char* path : {"kernels/sparse_mla/manifest.json", "kernels/sparse_mla/reference.cu",
                           "kernels/sparse_mla/problem.cpp", "kernels/sparse_mla/workloads.json"}) {
    auto r = check({"kernels/sparse_mla/kernel.cu", path});
    INFO(path);
    CHECK_FALSE(r.pass);
    REQUIRE(r.findings.size() == 1);
    CHECK(flags(r, path));
  }
  auto r = check({"kernels/sparse_mla/manifest.json"});
  CHECK(r.reason() == "guard: kernels/sparse_mla/manifest.json is outside the editable files");
}

TEST_CASE("the harness, other packages and new files elsewhere are out of scope") {
  auto r = check({"src/harness/cuda/cuda_device.cu", "kernels/matmul_cpu/kernel.cpp", "kernels/sparse_mla/cache.bin",
                  "notes.txt", "kernel.cu", "kernels/sparse_mla/kernel.cu.orig", "kernels/sparse_mla/sub/kernel.cu"});
  CHECK(r.findings.size() == 7);
}

TEST_CASE("paths that walk through .. are judged by where they land") {
  SECTION("back into the package, onto the manifest") {
    auto r = check({"kernels/sparse_mla/../sparse_mla/manifest.json"});
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].excerpt == "resolves to kernels/sparse_mla/manifest.json");
  }
  SECTION("from the editable file's folder into the harness") {
    auto r = check({"kernels/sparse_mla/../../src/harness/common/harness_core.cpp"});
    CHECK_FALSE(r.pass);
  }
  SECTION("out of the repository") {
    auto r = check({"kernels/sparse_mla/../../../etc/passwd"});
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].excerpt == "escapes the repository");
  }
  SECTION("an absolute path") {
    auto r = check({"/etc/passwd"});
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].excerpt == "absolute path");
  }
  SECTION("a harmless .. that ends on the editable file passes") {
    CHECK(check({"kernels/sparse_mla/sub/../kernel.cu"}).pass);
  }
}

TEST_CASE("renames and deletions of protected files are caught on either side") {
  SECTION("the reference renamed onto the kernel") {
    auto r = check({"kernels/sparse_mla/reference.cu -> kernels/sparse_mla/kernel.cu"});
    REQUIRE(r.findings.size() == 1);
    CHECK(flags(r, "kernels/sparse_mla/reference.cu"));
  }
  SECTION("the kernel renamed over the oracle") {
    auto r = check({"kernels/sparse_mla/kernel.cu -> kernels/sparse_mla/problem.cpp"});
    CHECK(flags(r, "kernels/sparse_mla/problem.cpp"));
  }
  SECTION("a deleted protected file is a changed path like any other") {
    CHECK_FALSE(check({"kernels/sparse_mla/reference.cu"}).pass);
  }
}

TEST_CASE("git's quoted names are unquoted before they are judged") {
  auto r = check({"\"kernels/sparse_mla/manifest\\056json\""});
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].excerpt == "resolves to kernels/sparse_mla/manifest.json");
  CHECK(check({"\"kernels/sparse_mla/kernel.cu\""}).pass);
}

TEST_CASE("an editable file turned into a symlink is out of scope") {
  ar::TempDir dir;
  std::ofstream(dir / "reference.cu") << "// the oracle\n";
  std::filesystem::create_symlink(dir / "reference.cu", dir / "kernel.cu");
  ar::Manifest m = manifest();
  m.dir = dir.path();
  auto r = ar::check_scope(m, kPrefix, {"kernels/sparse_mla/kernel.cu"});
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].excerpt == "now a symbolic link");
}

TEST_CASE("a package at the repository root") {
  auto r = ar::check_scope(manifest(), "", {"kernel.cu", "manifest.json"});
  REQUIRE(r.findings.size() == 1);
  CHECK(flags(r, "manifest.json"));
}
