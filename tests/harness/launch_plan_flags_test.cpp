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

TEST_CASE("a cluster size in bits 8..15 is honoured on every stage, with or without programmatic launch",
          "[launch_plan]") {
  CHECK(ar::honoured_cluster_size(stage_with(ar::stage_cluster(4)), 0) == 4u);
  CHECK(ar::honoured_cluster_size(stage_with(ar::stage_cluster(16)), 2) == 16u);
  const auto both = stage_with(ar::stage_cluster(2) | ar::kStageProgrammatic);
  CHECK(ar::honoured_cluster_size(both, 1) == 2u);
  CHECK(ar::honoured_stage_flags(both, 1) == (ar::stage_cluster(2) | ar::kStageProgrammatic));
  // On stage 0 the cluster stays and the programmatic bit goes.
  CHECK(ar::honoured_stage_flags(both, 0) == ar::stage_cluster(2));
  CHECK(ar::honoured_cluster_size(both, 0) == 2u);
}

TEST_CASE("no cluster unless a size is written: 0 and 1 mean none, and so does a poisoned field", "[launch_plan]") {
  CHECK(ar::honoured_cluster_size(stage_with(0u), 0) == 1u);
  CHECK(ar::honoured_cluster_size(stage_with(ar::stage_cluster(1)), 0) == 1u);
  CHECK(ar::honoured_cluster_size(stage_with(ar::kStageProgrammatic), 1) == 1u);
  ar::LaunchStage poisoned;
  std::memset(&poisoned, 0xFF, sizeof poisoned);
  CHECK(ar::honoured_cluster_size(poisoned, 0) == 1u);
  // A size the harness must refuse (over kMaxClusterSize) is still read as written, for bind to name it.
  CHECK(ar::honoured_cluster_size(stage_with(ar::stage_cluster(200)), 0) == 200u);
}
