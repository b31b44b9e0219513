// finish_run's last words: which number is the result, how the run ended, and
// the exact command that resumes it (issue 8).
#include <atomic>

#include "autoresearch/util/errors.h"
#include "catch.h"
#include "loop/steps.h"
#include "unit/fakes/temp_dir.h"

using namespace ar;

namespace {

struct Ended {
  TempDir dir;
  FakeClock clock;
  RecordingPrinter printer;
  std::atomic<bool> stop{false};
  World world;
  RunContext ctx{world};
  Ended() {
    world.clock = &clock;
    world.printer = &printer;
    world.stop = &stop;
    ctx.run_id = "toy-t";
    ctx.branch = "autoresearch/toy-t";
    ctx.goal = 1.5;
    ctx.log = std::make_unique<ExperimentLog>(ExperimentLog::create(dir / "experiments.jsonl", {{"run_id", "toy-t"}}));
  }
  nlohmann::json final_line() { return read_log(dir / "experiments.jsonl").lines.back(); }
  std::string all_events() {
    std::string s;
    for (const auto& e : printer.events) s += e + "\n";
    return s;
  }
};

}  // namespace

TEST_CASE("Ctrl-C: the run says it is resumable and prints the exact command") {
  Ended e;
  e.stop = true;
  CHECK(finish_run(e.ctx, "interrupted by a signal", true) == kExitInterrupted);
  CHECK(e.all_events().find("autoresearch run --resume toy-t\n") != std::string::npos);
  CHECK(e.final_line()["outcome"] == "interrupted");
  CHECK(e.final_line()["exit_code"] == kExitInterrupted);
}

TEST_CASE("an infrastructure stop is logged as failed, and is resumable too") {
  Ended e;   // interrupted, but no signal: the infrastructure exit
  CHECK(finish_run(e.ctx, "3 infrastructure failures in a row", true) == kExitInfrastructure);
  CHECK(e.final_line()["outcome"] == "failed");
  CHECK(e.all_events().find("autoresearch run --resume toy-t") != std::string::npos);
}

TEST_CASE("the final line says which number is the result") {
  Ended e;
  CHECK(finish_run(e.ctx, "--max-iters 3 reached", false) == kExitStopped);
  REQUIRE(!e.printer.events.empty());
  CHECK(e.printer.events[0].find("result: 1.000x vs the start (nothing kept)") != std::string::npos);
  CHECK(e.all_events().find("--resume") == std::string::npos);   // a finished run needs no resume hint
  CHECK(e.final_line()["outcome"] == "stopped");
  CHECK(e.final_line()["result_measured"] == "nothing kept");
}
