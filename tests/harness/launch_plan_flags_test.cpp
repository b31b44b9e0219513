// Which LaunchStage flags the harness honours (include/autoresearch/harness/launch_plan.h): a plan
// that never wrote the field, which the harness poisons with 0xFF bytes, must launch as before, and
// stage 0 never overlaps the call before it.
#include <cstring>

#include "autoresearch/harness/launch_plan.h"
#include "catch.h"

namespace {

ar::LaunchStage stage_with(unsigned flags) {
  ar::LaunchStage s{};
  s.flags = flags;
  return s;
}

}  // namespace

TEST_CASE("a programmatic stage after the first is honoured", "[launch_plan]") {
  CHECK(ar::honoured_stage_flags(stage_with(ar::kStageProgrammatic), 1) == ar::kStageProgrammatic);
  CHECK(ar::honoured_stage_flags(stage_with(ar::kStageProgrammatic), 3) == ar::kStageProgrammatic);
  CHECK(ar::honoured_stage_flags(stage_with(0u), 1) == 0u);
}

TEST_CASE("stage 0 is never launched programmatically", "[launch_plan]") {
  CHECK(ar::honoured_stage_flags(stage_with(ar::kStageProgrammatic), 0) == 0u);
}

TEST_CASE("unknown bits, as in a field the plan never wrote, mean no flags", "[launch_plan]") {
  ar::LaunchStage poisoned;
  std::memset(&poisoned, 0xFF, sizeof poisoned);
  CHECK(ar::honoured_stage_flags(poisoned, 1) == 0u);
  CHECK(ar::honoured_stage_flags(stage_with(ar::kStageProgrammatic | 0x80u), 1) == 0u);
}

TEST_CASE("a plan written before flags existed still compiles and reads as no flags", "[launch_plan]") {
  ar::LaunchStage s{};
  s.reserved = 0;   // the older field name
  CHECK(ar::honoured_stage_flags(s, 1) == 0u);
  CHECK(sizeof(ar::LaunchStage) == 8 * sizeof(unsigned));   // the layout the cubins and the harness share
}
