// The progress file of `autoresearch space`: what was measured survives a kill
// and is found again by the next run of the command; another measurement's
// progress is refused rather than mixed in.
#include "cli/space_progress.h"

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "autoresearch/util/errors.h"
#include "catch.h"

using namespace ar;

namespace {
std::filesystem::path scratch(const char* name) {
  auto p = std::filesystem::temp_directory_path() / (std::string("ar_space_progress_") + std::to_string(getpid()) + name);
  std::filesystem::remove(p);
  return p;
}
}  // namespace

TEST_CASE("the space progress is found again after a restart, a cut line is measured again") {
  auto file = scratch("a");
  nlohmann::json identity = {{"space", {{"kernel", "k"}}}, {"workloads", {"w1", "w2"}}};
  {
    SpaceProgress p(file, identity);
    SpaceEntry fast;
    fast.build = "abc";
    fast.ratio = {2, 4};
    fast.ci_low = {1.9, 3.8};
    fast.ci_high = {2.1, 4.2};
    fast.reference_us = {100, 200};
    p.add({{{"X", 1}}, {{"X", 2}}}, fast);   // two configurations, one build
    SpaceEntry broken;
    broken.failure = Decision::BuildError;
    broken.reason = "does not build: x";
    p.add({{{"X", 3}}}, broken);
  }
  std::ofstream(file, std::ios::app) << "{\"configs\": [{\"X\": 4}], \"ratio\": [1";   // a kill mid-line
  SpaceProgress again(file, identity);
  CHECK(again.size() == 3);
  REQUIRE(again.find({{"X", 2}}));
  CHECK(again.find({{"X", 2}})->ratio == std::vector<double>{2, 4});
  REQUIRE(again.find({{"X", 3}}));
  CHECK(again.find({{"X", 3}})->failure == Decision::BuildError);
  CHECK_FALSE(again.find({{"X", 4}}));
  auto medians = again.reference_medians(2);
  CHECK(medians[0] == std::vector<double>{100});   // failures carry no reference time
  CHECK(medians[1] == std::vector<double>{200});

  nlohmann::json other = identity;
  other["workloads"] = {"w1"};
  try {
    SpaceProgress refused(file, other);
    FAIL("another measurement's progress was accepted");
  } catch (const Fatal& e) {
    CHECK(std::string(e.what()).find("other tunables, workloads or sampling") != std::string::npos);
  }
  std::filesystem::remove(file);
}
