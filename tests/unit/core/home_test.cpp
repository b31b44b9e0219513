// Where the shipped files are found: AUTORESEARCH_HOME first (refused when it
// does not hold them), else beside the executable (an install), else the
// source tree of the build (this test binary is neither installed nor moved).
#include <cstdlib>
#include <fstream>

#include "autoresearch/core/paths.h"
#include "autoresearch/util/errors.h"
#include "catch.h"
#include "unit/fakes/temp_dir.h"

namespace fs = std::filesystem;
using namespace ar;

namespace {

struct HomeEnv {   // sets AUTORESEARCH_HOME for one test, restores it after
  explicit HomeEnv(const char* value) {
    if (const char* old = std::getenv("AUTORESEARCH_HOME")) saved = old, had = true;
    if (value) setenv("AUTORESEARCH_HOME", value, 1);
    else unsetenv("AUTORESEARCH_HOME");
  }
  ~HomeEnv() {
    if (had) setenv("AUTORESEARCH_HOME", saved.c_str(), 1);
    else unsetenv("AUTORESEARCH_HOME");
  }
  std::string saved;
  bool had = false;
};

}  // namespace

TEST_CASE("home: AUTORESEARCH_HOME holding the shipped files wins", "[home]") {
  TempDir home;
  fs::create_directories(home / "src/harness");
  fs::create_directories(home / "include/autoresearch/harness");
  std::ofstream(home / "src/harness/PROTOCOL.md") << "x";
  std::ofstream(home / "include/autoresearch/harness/problem.h") << "x";
  HomeEnv env(home.path().c_str());
  CHECK(find_home() == home.path());
}

TEST_CASE("home: AUTORESEARCH_HOME without them is refused, naming it", "[home]") {
  TempDir empty;
  HomeEnv env(empty.path().c_str());
  try {
    find_home();
    FAIL("expected a usage error");
  } catch (const Fatal& e) {
    CHECK(e.code() == kExitUsage);
    CHECK(std::string(e.what()).find(empty.path().string()) != std::string::npos);
    CHECK(std::string(e.what()).find("share/autoresearch") != std::string::npos);
  }
}

TEST_CASE("home: unset, a build falls back to its source tree", "[home]") {
  HomeEnv env(nullptr);
  CHECK(fs::equivalent(find_home(), AR_TEST_SOURCE_DIR));
}
