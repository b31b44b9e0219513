// Where the wall time goes (issue 11): the phase accounting itself, then a run
// against fakes whose harness and compiler take known time on the fake clock.
#include "autoresearch/loop/phase_times.h"
#include "unit/loop/loop_fixture.h"

using namespace loop_test;

TEST_CASE("nested phases charge only the innermost one, so the phases never overlap") {
  FakeClock clock;
  Clock* c = &clock;
  PhaseTimes t(c);
  {
    auto screen = t.time(Phase::Screen);
    clock.advance(2);
    {
      auto git = t.time(Phase::Git);   // a revert inside a failed screen
      clock.advance(0.5);
    }
    clock.advance(1);
  }
  clock.advance(4);   // no phase open: the driver's own time
  PhaseSeconds s = t.totals();
  CHECK(s[Phase::Screen] == Approx(3));
  CHECK(s[Phase::Git] == Approx(0.5));
  CHECK(s.total() == Approx(3.5));
  auto j = s.to_json(7.5);
  CHECK(j["other"].get<double>() == Approx(4));
  CHECK(j["build_wait"].get<double>() == 0);   // every phase is there, zeros included
  CHECK(j.size() == kPhaseCount + 1);
  CHECK(phase_breakdown_text(s, 7.5) == "other 53%, screen 40%, git 7%");
  // Open phases count up to now; a difference is a window's share.
  auto open = t.time(Phase::Measure);
  clock.advance(1);
  CHECK((t.totals() - s)[Phase::Measure] == Approx(1));
}

TEST_CASE("every candidate line and the final line carry the time per phase, which add up to the wall time") {
  Fixture f;
  f.work_takes_time = true;
  int code = run_loop(f.world, f.request({{"goal", "5x"}, {"max_iters", 3}, {"plateau", 0}}));
  CHECK(code == kExitStopped);
  auto lines = f.lines();
  auto cands = of(lines, "candidate");
  REQUIRE(cands.size() == 3);
  double candidates_sum = 0, screen_sum = 0;
  for (const auto& c : cands) {
    INFO(c.dump());
    REQUIRE(c.contains("phases"));
    const auto& p = c["phases"];
    double total = 0;
    for (const auto& [name, v] : p.items()) {
      CHECK(v.get<double>() >= 0);
      total += v.get<double>();
    }
    candidates_sum += total;
    // A CPU package compiles in the loop: build (scan 0.1 s + compile 0.5 s), never a wait.
    CHECK(p["build"].get<double>() == Approx(0.6));
    CHECK(p["build_wait"].get<double>() == 0);
    // A tunables-only candidate is verified only when its screen passed.
    if (c.contains("verify")) CHECK(p["verify"].get<double>() >= 0.01 - 1e-9);
    if (c.contains("screen")) {
      // Each bench request takes 0.05 s: the screen's share is a whole number of them.
      double n = p["screen"].get<double>() / 0.05;
      CHECK(n > 0.99);
      CHECK(n == Approx(std::round(n)));
      CHECK(p["screen"].get<double>() == Approx(c["screen"]["gpu_seconds"].get<double>()));
    }
    screen_sum += p["screen"].get<double>();   // a screen that found the candidate wrong has no "screen" entry
    if (c.contains("bench")) CHECK(p["measure"].get<double>() == Approx(c["bench"]["gpu_seconds"].get<double>()));
    if (c.contains("confirm")) CHECK(p["confirm"].get<double>() == Approx(c["confirm"]["gpu_seconds"].get<double>()));
  }
  auto fin = of(lines, "final");
  REQUIRE(fin.size() == 1);
  const auto& p = fin[0]["phases"];
  double total = 0;
  for (const auto& [name, v] : p.items()) total += v.get<double>();
  const double wall = fin[0]["session"]["seconds"].get<double>();
  CHECK(total == Approx(wall));
  CHECK(p["setup"].get<double>() > 0);                // the baseline and its A/A
  CHECK(p["screen"].get<double>() == Approx(screen_sum));
  CHECK(candidates_sum <= wall + 1e-9);
  CHECK(p["build"].get<double>() == Approx(3 * 0.6));
  // The breakdown is printed at the end, with the device's measuring share.
  bool printed = false;
  for (const auto& e : f.printer.events)
    printed = printed || (e.rfind("time: ", 0) == 0 && e.find("build ") != std::string::npos &&
                          e.find("the device was measuring") != std::string::npos);
  CHECK(printed);
}
