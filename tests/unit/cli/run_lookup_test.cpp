// The RUN argument of `log` and `report`: the latest run by default, a run id,
// a run folder or a log file.
#include <chrono>
#include <fstream>

#include "autoresearch/log/experiment_log.h"
#include "autoresearch/util/errors.h"
#include "catch.h"
#include "cli/run_admin.h"
#include "unit/fakes/temp_dir.h"

using namespace ar;
namespace fs = std::filesystem;

namespace {

fs::path write_log(const Paths& p, const std::string& id, int minutes_ago) {
  fs::create_directories(p.run_dir(id));
  const fs::path f = p.run_dir(id) / kLogFileName;
  std::ofstream(f) << "{\"type\":\"header\",\"version\":1}\n";
  fs::last_write_time(f, fs::file_time_type::clock::now() - std::chrono::minutes(minutes_ago));
  return f;
}

}  // namespace

TEST_CASE("run lookup: without RUN, the run whose log was written last") {
  TempDir dir;
  Paths p;
  p.repo = dir.path();
  try {
    latest_run(p);
    FAIL("no error");
  } catch (const Fatal& e) {
    CHECK(std::string(e.what()).find("no runs yet under") != std::string::npos);
  }
  write_log(p, "k-old", 30);
  write_log(p, "k-new", 1);
  write_log(p, "k-mid", 10);
  fs::create_directories(p.run_dir("k-empty"));   // a folder without a log is no run
  CHECK(latest_run(p) == "k-new");
}

TEST_CASE("run lookup: a run id, a run folder or a log file; an unknown id is named") {
  TempDir dir;
  Paths p;
  p.repo = dir.path();
  const fs::path f = write_log(p, "k-1", 0);
  CHECK(run_log_file(p, "k-1") == f);
  CHECK(run_log_file(p, p.run_dir("k-1").string()) == f);
  CHECK(run_log_file(p, f.string()) == f);
  CHECK(names_log_outside_repo(f.string()));
  CHECK(names_log_outside_repo(p.run_dir("k-1").string()));
  CHECK_FALSE(names_log_outside_repo("k-1"));   // an id needs the repository
  CHECK_FALSE(names_log_outside_repo(""));
  try {
    run_log_file(p, "nosuch");
    FAIL("no error");
  } catch (const Fatal& e) {
    CHECK(e.code() == kExitUsage);
    CHECK(std::string(e.what()).find("no run 'nosuch'") != std::string::npos);
  }
}
