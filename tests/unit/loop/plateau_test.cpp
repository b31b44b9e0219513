// The tuner never spends the night (issue 11): the plateau window shrinks with
// the untried space, the run stops when every configuration has been tried,
// and a configuration an earlier run measured is not measured again.
#include <set>

#include "autoresearch/loop/plateau.h"
#include "unit/loop/loop_fixture.h"

using namespace loop_test;

TEST_CASE("the plateau window is the configured one, or half of what was untried at the last keep") {
  CHECK(plateau_window(60, std::nullopt) == 60);   // a text agent: unknown
  CHECK(plateau_window(60, 1000) == 60);
  CHECK(plateau_window(60, 50) == 25);
  CHECK(plateau_window(60, 3) == 2);
  CHECK(plateau_window(60, 1) == 1);
  CHECK(plateau_window(60, 0) == 1);
  CHECK(plateau_window(0, 3) == 0);                // --plateau 0: never
  CHECK(plateau_reason(60, 50, 24).empty());
  CHECK(plateau_reason(60, 50, 25) ==
        "plateau: 25 candidates without a keep (half of the 50 configurations untried at the last keep; --plateau 60)");
  CHECK(plateau_reason(60, std::nullopt, 60) == "plateau: 60 candidates without a keep");
  CHECK(plateau_reason(0, 3, 1000).empty());
}

TEST_CASE("a tuner run stops when every allowed configuration has been tried") {
  Fixture f;
  int code = run_loop(f.world, f.request({{"goal", "5x"}, {"max_iters", 50}, {"plateau", 0}}));
  CHECK(code == kExitStopped);
  auto lines = f.lines();
  CHECK(of(lines, "candidate").size() == 3);   // X = 1, 2, 3; X = 0 is the start
  CHECK(of(lines, "final")[0]["stop_reason"] == "every allowed configuration has been tried");
}

TEST_CASE("the plateau shrinks when few configurations are left untried") {
  // X = 2 is the fastest: after it is kept, 1 or 2 configurations are left,
  // so one candidate without a keep ends the run, well before --plateau 60.
  for (int seed : {1, 2, 3, 4, 5, 6}) {
    Fixture f;
    auto req = f.request({{"goal", "5x"}, {"max_iters", 50}, {"plateau", 60}});
    req.config.seed = seed;
    run_loop(f.world, req);
    auto cands = of(f.lines(), "candidate");
    std::string reason = of(f.lines(), "final")[0]["stop_reason"];
    INFO("seed " << seed << ": " << reason);
    int keep_at = 0;
    for (size_t i = 0; i < cands.size(); ++i)
      if (cands[i]["decision"] == "keep") keep_at = static_cast<int>(i) + 1;
    if (keep_at == 1 && cands.size() < 3) {
      CHECK(reason.rfind("plateau: 1 candidates without a keep (half of the 2 configurations untried", 0) == 0);
      CHECK(cands.size() == 2);
    } else {
      CHECK(cands.size() <= 3);
    }
  }
}

TEST_CASE("with the cache on, a second run measures none of the configurations the first one measured") {
  Fixture f;
  auto first = f.request({{"goal", "5x"}, {"max_iters", 2}, {"plateau", 0}});
  first.config.cache = true;
  run_loop(f.world, first);
  std::set<std::string> measured;
  for (const auto& c : of(f.lines(), "candidate")) measured.insert(c["tunables"].dump());
  REQUIRE(measured.size() == 2);

  auto second = f.request({{"goal", "5x"}, {"max_iters", 10}, {"plateau", 0}});
  second.config.cache = true;
  second.config.tag = "u";
  run_loop(f.world, second);
  auto again = read_log(f.dir.path() / ".autoresearch/runs/toy-u/experiments.jsonl").lines;
  auto cands = of(again, "candidate");
  for (const auto& c : cands) CHECK(measured.count(c["tunables"].dump()) == 0);
  CHECK(cands.size() == 1);   // the one configuration the first run left
  CHECK(of(again, "final")[0]["stop_reason"] == "every allowed configuration has been tried");
}
