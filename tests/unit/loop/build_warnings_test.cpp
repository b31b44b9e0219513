// ptxas's performance warnings on the last built candidate, as the loop hands them to the agents' context.
#include "catch.h"
#include "loop/steps.h"

using namespace ar;

TEST_CASE("a build record's ptxas warnings become one line each under the candidate's id") {
  CHECK(build_warnings_line(7, nlohmann::json{{"registers", 168}, {"spills", 0}}).empty());
  CHECK(build_warnings_line(7, nlohmann::json{{"ptxas_warnings", nlohmann::json::array()}}).empty());
  nlohmann::json build = {{"registers", 168},
                          {"spills", 0},
                          {"ptxas_warnings", {"ar_stage0: (C7520) serialized", "ar_k1_stage0: (C7520) serialized"}}};
  CHECK(build_warnings_line(7, build) == "#7:\n- ar_stage0: (C7520) serialized\n- ar_k1_stage0: (C7520) serialized");
}
