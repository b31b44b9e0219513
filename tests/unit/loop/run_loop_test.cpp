// The loop against fakes (loop_fixture.h), with the built-in tuner.
#include "autoresearch/util/fs.h"
#include "unit/loop/loop_fixture.h"

using namespace loop_test;

TEST_CASE("the loop keeps what is really faster, rejects what is wrong, and stops at the goal") {
  Fixture f;
  int code = run_loop(f.world, f.request({{"goal", "1.2x"}, {"max_iters", 10}}));
  auto lines = f.lines();
  auto cands = of(lines, "candidate");
  std::map<long long, std::string> by_x;
  for (const auto& c : cands) by_x[c["tunables"]["X"].get<long long>()] = c["decision"];
  CHECK(code == kExitOk);
  CHECK(by_x[2] == "keep");
  if (by_x.count(3)) CHECK(by_x[3] == "wrong");
  auto fin = of(lines, "final");
  REQUIRE(fin.size() == 1);
  CHECK(fin[0]["goal_reached"] == true);
  CHECK(fin[0]["speedup_vs_baseline"].get<double>() == Approx(1.25).epsilon(0.01));
  // One commit per keep on the run's branch; the checkout itself is untouched.
  int keeps = 0;
  for (const auto& c : cands) keeps += c["decision"] == "keep";
  std::string log = f.git({"log", "--format=%s", "main..autoresearch/toy-t"});
  CHECK(static_cast<int>(std::count(log.begin(), log.end(), '\n')) == keeps);
  CHECK(f.git({"status", "--porcelain"}).empty());
}

TEST_CASE("a budget stops the run with exit 3 when the goal is out of reach") {
  Fixture f;
  int code = run_loop(f.world, f.request({{"goal", "5x"}, {"max_iters", 2}}));
  CHECK(code == kExitStopped);
  CHECK(of(f.lines(), "candidate").size() == 2);
  CHECK(of(f.lines(), "final")[0]["stop_reason"] == "--max-iters 2 reached");
}

TEST_CASE("a signal mid-measurement abandons the candidate cleanly; resume continues the numbering") {
  Fixture f;
  f.interrupt_at_bench = 3;   // the A/A calibration is bench 1; the first screen is bench 2
  int code = run_loop(f.world, f.request({{"goal", "5x"}, {"max_iters", 10}}));
  CHECK(code == kExitInterrupted);
  auto lines = f.lines();
  auto cands = of(lines, "candidate");
  REQUIRE(!cands.empty());
  CHECK(cands.back()["decision"] == "interrupted");
  CHECK(of(lines, "final")[0]["stop_reason"] == "interrupted by a signal");
  int last = cands.back()["id"];

  f.stop = false;
  f.interrupt_at_bench = -1;
  RunRequest again = f.request();
  again.resume = "toy-t";
  again.overrides = {{"max_iters", last + 2}};
  code = run_loop(f.world, again);
  CHECK((code == kExitStopped || code == kExitOk));
  auto after = of(f.lines(), "candidate");
  CHECK(after.back()["id"].get<int>() == last + 2);
  CHECK(of(f.lines(), "resume").size() == 1);
}

TEST_CASE("bad input is refused before anything changes") {
  Fixture f;
  std::ofstream(f.dir.path() / "kernels/toy/kernel.cpp", std::ios::app) << "// uncommitted\n";
  CHECK_THROWS_AS(run_loop(f.world, f.request()), Fatal);
  CHECK(!fs::exists(f.dir.path() / ".autoresearch/runs/toy-t"));
  CHECK(f.git({"branch", "--list", "autoresearch/*"}).empty());
}

// Issue 8, bug 5: one seed, recorded once, validated on input.
TEST_CASE("the run's seed is recorded once, and a seed out of range is refused, never clamped") {
  Fixture f;
  run_loop(f.world, f.request({{"goal", "5x"}, {"max_iters", 1}}));
  auto header = read_log(f.dir.path() / ".autoresearch/runs/toy-t/experiments.jsonl").header;
  CHECK(header["seed"] == 5);
  CHECK(header["config"]["seed"] == header["seed"]);

  RunConfig c;
  CHECK_THROWS_AS(apply_json(c, nlohmann::json::parse(R"({"seed": 18446744073709551615})"), "test"), Fatal);
  CHECK_THROWS_AS(apply_json(c, {{"plateau", 4294967296LL}}, "test"), Fatal);
  setenv("AUTORESEARCH_SEED", "99999999999999999999", 1);
  CHECK_THROWS_AS(apply_environment(c), Fatal);
  unsetenv("AUTORESEARCH_SEED");
  // 0: a seed from the clock, recorded as the seed it became.
  Fixture g;
  RunRequest req = g.request({{"goal", "5x"}, {"max_iters", 1}});
  req.config.seed = 0;
  run_loop(g.world, req);
  auto h2 = read_log(g.dir.path() / ".autoresearch/runs/toy-t/experiments.jsonl").header;
  CHECK(h2["seed"].get<long long>() > 0);
  CHECK(h2["config"]["seed"] == h2["seed"]);
}

TEST_CASE("a tunables-only candidate is screened, verified on the quick set, measured, and verified everywhere only before it is kept") {
  Fixture f;
  int code = run_loop(f.world, f.request({{"goal", "5x"}, {"max_iters", 3}, {"plateau", 0}}));
  CHECK(code == kExitStopped);
  auto cands = of(f.lines(), "candidate");
  REQUIRE(cands.size() == 3);   // every value of X but the start's
  // The candidate's verifications in the harness, in order: the benches before each.
  std::vector<int> benches_before;
  for (const auto& [slot, benches] : f.calls.verifies)
    if (slot == "cand") benches_before.push_back(benches);
  size_t next = 0;
  int kept = 0;
  for (const auto& c : cands) {
    INFO(c.dump());
    const std::string reason = c["reason"];
    const long long x = c["tunables"]["X"];
    if (x == 3) {
      // Slower and wrong: its screen's timed replays are checked, so it is wrong, not a loser.
      CHECK(c["decision"] == "wrong");
      CHECK(reason.find("timed replay") != std::string::npos);
      CHECK_FALSE(c.contains("verify"));
    } else if (reason.rfind("screen:", 0) == 0) {
      CHECK_FALSE(c.contains("verify"));   // a loser costs its screen only
    } else {
      REQUIRE(c["decision"] == "keep");
      ++kept;
      // The quick set before the full measurement, the rest after the confirming one.
      REQUIRE(c["verify"]["workloads"].size() == 2);
      REQUIRE(next + 1 < benches_before.size());
      CHECK(benches_before[next] >= 2);   // the A/A calibration, then at least its screen
      CHECK(benches_before[next + 1] - benches_before[next] >= 2);   // measured and confirmed in between
      CHECK(c.contains("bench"));
      CHECK(c.contains("confirm"));
      next += 2;
    }
  }
  CHECK(kept >= 1);   // X = 1 and X = 2 are faster than the start
  CHECK(next == benches_before.size());

  // Measured and not kept: the quick set was verified, the rest never needed to be.
  Fixture g;
  code = run_loop(g.world, g.request({{"goal", "5x"}, {"max_iters", 3}, {"plateau", 0}, {"min_gain", 0.5}}));
  CHECK(code == kExitStopped);
  int measured = 0;
  for (const auto& c : of(g.lines(), "candidate")) {
    INFO(c.dump());
    CHECK(c["decision"] != "keep");
    if (!c.contains("bench")) continue;
    ++measured;
    CHECK(c["decision"] == "discard");
    REQUIRE(c["verify"]["workloads"].size() == 1);
    CHECK(c["verify"]["workloads"][0]["name"] == "w1");
  }
  CHECK(measured >= 1);   // X = 1 and X = 2 pass the screen and fall short of a 50% gain
}

TEST_CASE("--screen-first false verifies a tunables-only candidate before its screen") {
  Fixture f;
  int code = run_loop(f.world, f.request({{"goal", "5x"}, {"max_iters", 3}, {"plateau", 0}, {"screen_first", false}}));
  CHECK(code == kExitStopped);
  auto cands = of(f.lines(), "candidate");
  REQUIRE(cands.size() == 3);
  for (const auto& c : cands) {
    INFO(c.dump());
    REQUIRE(c.contains("verify"));   // every candidate, loser or not
    if (c["tunables"]["X"] == 3) {
      CHECK(c["decision"] == "wrong");
      CHECK(c["reason"].get<std::string>().rfind("verify quick: wrong on w1", 0) == 0);
      CHECK_FALSE(c.contains("screen"));
    }
  }
}

namespace {
// The toy package with a second tunable its source never reads (the fake preprocessor drops UNUSED_*).
void add_unused_tunable(Fixture& f) {
  fs::path manifest = f.dir.path() / "kernels/toy/manifest.json";
  std::string text = read_file(manifest);
  const std::string x = R"({"name": "X", "values": [0, 1, 2, 3], "default": 0})";
  text.replace(text.find(x), x.size(), x + R"(, {"name": "UNUSED_Y", "values": [0, 1], "default": 0})");
  std::ofstream(manifest) << text;
  std::ofstream(f.dir.path() / "kernels/toy/tunables.json") << "{\"X\": 0, \"UNUSED_Y\": 0}\n";
  f.git({"commit", "-qam", "a tunable the source ignores"});
}
}  // namespace

TEST_CASE("a setting that preprocesses to the best's own kernel is discarded unmeasured") {
  Fixture f;
  add_unused_tunable(f);
  int code = run_loop(f.world, f.request({{"goal", "5x"}, {"max_iters", 8}, {"strategy", "evolution"}}));
  CHECK(code == kExitStopped);
  // Replay the incumbent through the log: exactly the candidates that differ from it in UNUSED_Y alone are
  // the same kernel, and those are never measured.
  nlohmann::json incumbent = {{"X", 0}, {"UNUSED_Y", 0}};
  int same = 0;
  for (const auto& c : of(f.lines(), "candidate")) {
    const bool same_x = c["tunables"]["X"] == incumbent["X"];
    const bool flagged = c["reason"].get<std::string>().rfind("the same kernel as the best", 0) == 0;
    CHECK(same_x == flagged);
    if (flagged) {
      ++same;
      CHECK(c["decision"] == "discard");
      CHECK_FALSE(c.contains("screen"));
      CHECK_FALSE(c.contains("speedup"));
    }
    if (c["decision"] == "keep") incumbent = c["tunables"];
  }
  CHECK(same >= 1);   // the evolution strategy sweeps the start's one-step neighbours, UNUSED_Y 0→1 among them
}
