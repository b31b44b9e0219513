// `init`: the shipped templates (templates/<backend>/ of the source tree, the
// home of a build) become kernels/NAME with the name filled in, and a valid
// manifest; bad names and existing packages are refused with nothing written.
#include <fstream>

#include "autoresearch/core/package_init.h"
#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"
#include "catch.h"
#include "unit/fakes/temp_dir.h"

namespace fs = std::filesystem;
using namespace ar;

namespace {

Paths paths_in(const fs::path& repo) {
  Paths p;
  p.home = AR_TEST_SOURCE_DIR;
  p.repo = repo;
  return p;
}

int usage_exit_of(const std::function<void()>& f, std::string* message) {
  try {
    f();
  } catch (const Fatal& e) {
    *message = e.what();
    return e.code();
  }
  return 0;
}

}  // namespace

TEST_CASE("init: package names", "[init]") {
  std::string why;
  CHECK(valid_package_name("my_op", &why));
  CHECK(valid_package_name("A1", &why));
  CHECK(valid_package_name(std::string(48, 'a'), &why));
  CHECK_FALSE(valid_package_name(std::string(49, 'a'), &why));
  CHECK(why.find("longer than 48") != std::string::npos);
  for (const char* bad : {"", "9x", "_x", "a-b", "a.b", "a/b", "..", "a b", "é"}) {
    INFO(bad);
    CHECK_FALSE(valid_package_name(bad, &why));
  }
}

TEST_CASE("init: both templates scaffold a valid package named as asked", "[init]") {
  for (Backend b : {Backend::Cpu, Backend::Cuda}) {
    TempDir repo;
    InitResult r = init_package(paths_in(repo.path()), "my_op", b);
    CHECK(r.dir == repo.path() / "kernels" / "my_op");
    Manifest m = load_manifest(r.dir / "manifest.json");   // validates every field
    CHECK(m.name == "my_op");
    CHECK(m.backend == b);
    REQUIRE(m.tunables.size() == 1);
    CHECK(m.tunables[0].values.size() > 1);
    CHECK(std::find(r.files.begin(), r.files.end(), "README.md") != r.files.end());
    CHECK(std::find(r.files.begin(), r.files.end(), m.kernel_source) != r.files.end());
    CHECK(read_file(r.dir / "README.md").find("# my_op") != std::string::npos);
    for (const auto& f : r.files) CHECK(read_file(r.dir / f).find("@NAME@") == std::string::npos);
    // Nothing left behind beside it.
    int entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(repo.path() / "kernels")) ++entries;
    CHECK(entries == 1);
  }
}

TEST_CASE("init: an existing package or file and an invalid name are refused, nothing written", "[init]") {
  TempDir repo;
  fs::create_directories(repo.path() / "kernels" / "taken");
  std::ofstream(repo.path() / "kernels" / "taken" / "mine.txt") << "keep me\n";
  std::ofstream(repo.path() / "kernels" / "afile") << "x\n";
  std::string msg;
  CHECK(usage_exit_of([&] { init_package(paths_in(repo.path()), "taken", Backend::Cpu); }, &msg) == kExitUsage);
  CHECK(msg.find("already exists") != std::string::npos);
  CHECK(read_file(repo.path() / "kernels" / "taken" / "mine.txt") == "keep me\n");
  CHECK_FALSE(fs::exists(repo.path() / "kernels" / "taken" / "manifest.json"));
  CHECK(usage_exit_of([&] { init_package(paths_in(repo.path()), "afile", Backend::Cpu); }, &msg) == kExitUsage);
  CHECK(usage_exit_of([&] { init_package(paths_in(repo.path()), "../escape", Backend::Cpu); }, &msg) == kExitUsage);
  CHECK(msg.find("invalid package name") != std::string::npos);
  CHECK_FALSE(fs::exists(repo.path() / "escape"));
}

TEST_CASE("init: a home without templates says where it looked", "[init]") {
  TempDir repo, home;
  Paths p;
  p.home = home.path();
  p.repo = repo.path();
  std::string msg;
  CHECK(usage_exit_of([&] { init_package(p, "x", Backend::Cuda); }, &msg) == kExitUsage);
  CHECK(msg.find((home.path() / "templates" / "cuda").string()) != std::string::npos);
  CHECK_FALSE(fs::exists(repo.path() / "kernels" / "x"));
}
