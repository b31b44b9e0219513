// The measured-space file and its replay (`autoresearch simulate`): the file is
// validated in full, a replay never measures a configuration twice and uses up
// the space exactly, and on a synthetic hard space the model-guided strategies
// beat random search. The committed real spaces are in space_regression_test.cpp.
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "autoresearch/agents/simulation.h"
#include "autoresearch/util/errors.h"
#include "synthetic_space.h"

namespace ar {
namespace {

// A space file from a manifest and a time per configuration (nullopt: a build error).
template <class TimeOf>
std::string space_text(const Manifest& m, TimeOf time_of) {
  SearchSpace space(m);
  std::vector<SpacePoint> points;
  for (uint64_t code : space.feasible_codes()) {
    SpacePoint p;
    p.tunables = space.decode(code);
    std::optional<double> t = time_of(space, p.tunables);
    if (t) {
      p.time_us = *t;
      p.detail["workloads"] = {{"w", {{"us", *t}, {"ratio_ci", {0.98, 1.02}}}}};
    } else {
      p.decision = Decision::BuildError;
      p.reason = "does not build";
    }
    points.push_back(p);
  }
  return space_file_text(space_header(m), points);
}

// The hard synthetic space (synthetic_space.h) as a measured space: a tilted
// bowl with coupled tiles, ±1.5% fixed noise, a region that does not build.
std::optional<double> hard_time(const SearchSpace& space, const Tunables& t) {
  if (test::synthetic_fails_to_build(t)) return std::nullopt;
  return test::synthetic_measured_us(space, t);
}

MeasuredSpace toy_space() {
  return parse_measured_space(space_text(test::toy_manifest(),
                                         [](const SearchSpace& s, const Tunables& t) -> std::optional<double> {
                                           if (t.at("VEC") == 8) return std::nullopt;
                                           auto idx = s.indices(t);
                                           return 10.0 + std::abs(2.0 - idx[0]) + idx[1] + idx[2];
                                         }),
                              "toy.jsonl");
}

std::string without_line(const std::string& text, int line) {
  std::string out;
  int n = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (++n != line) out += text.substr(start, end - start + 1);
    start = end + 1;
  }
  return out;
}

TEST_CASE("a measured space is read back as written, and every defect is named") {
  MeasuredSpace s = toy_space();
  CHECK(s.points.size() == 39);
  CHECK(s.failures() == 6);   // TILE 8 and 16 with VEC 8, any UNROLL
  CHECK(s.best_time_us() == Approx(10));
  CHECK(s.within(0.05) == 1);
  REQUIRE(s.find(s.start()));

  std::string text = space_text(test::toy_manifest(), [](const SearchSpace&, const Tunables&) {
    return std::optional<double>(5.0);
  });
  auto refused = [](const std::string& t, const std::string& what) {
    INFO(what);
    try {
      parse_measured_space(t, "x.jsonl");
      FAIL("accepted");
    } catch (const Fatal& e) {
      CHECK(std::string(e.what()).find(what) != std::string::npos);
    }
  };
  refused(without_line(text, 5), "missing");
  std::string twice = text + text.substr(text.find('\n') + 1, text.find('\n', text.find('\n') + 1) - text.find('\n'));
  refused(twice, "appears twice");
  refused("{\"type\": \"space\"}\n", "tunables");
  refused(text + "{\"tunables\": {\"TILE\": 8, \"UNROLL\": 1, \"VEC\": 1}}\n", "expected time_us, or a decision");
  refused(text + "{\"tunables\": {\"TILE\": 64, \"UNROLL\": 1, \"VEC\": 4}, \"time_us\": 3}\n", "not in the declared space");
  std::string no_start = text;
  size_t at = no_start.find("{\"time_us\":5.0,\"tunables\":{\"TILE\":16,\"UNROLL\":1,\"VEC\":1}");
  REQUIRE(at != std::string::npos);
  no_start.replace(at, std::string("{\"time_us\":5.0,").size(), "{\"decision\":\"build_error\",");
  refused(no_start, "the start");
}

TEST_CASE("a replay never measures a configuration twice and uses up the space exactly") {
  MeasuredSpace s = toy_space();
  SimulationOptions o;
  o.target = -1;   // never reached: the tuner runs until it has nothing left
  for (Strategy st : {Strategy::Random, Strategy::Evolution, Strategy::Tpe})
    for (int in_flight : {1, 4}) {
      for (unsigned long long seed = 1; seed <= 5; ++seed) {
        o.in_flight = in_flight;
        INFO(strategy_name(st) << " in flight " << in_flight << " seed " << seed);
        SeedRun r = simulate_run(s, st, seed, o);   // throws std::logic_error on a second measurement
        CHECK(!r.reached);
        CHECK(r.evaluations == static_cast<int>(s.points.size()) - 1);   // all but the start
        CHECK(r.best_time_us == Approx(s.best_time_us()));
      }
    }
}

TEST_CASE("the replay's numbers: reached at once from a best start, quartiles, noise") {
  MeasuredSpace s = toy_space();
  SimulationOptions o;
  o.target = 10;   // the start is within 1000% of the best
  CHECK(simulate_run(s, Strategy::Tpe, 1, o).evaluations == 0);
  CHECK(quantile({4, 1, 3, 2}, 0.5) == Approx(2.5));
  CHECK(quantile({4, 1, 3, 2}, 0.25) == Approx(1.75));
  CHECK(parse_strategies({"evolution", "all"}).size() == 4);
  CHECK_THROWS_AS(parse_strategies({"annealing"}), Fatal);
  // With noise the tuner is told other times, so the path changes, not the truth.
  o.target = 0.05;
  o.seeds = 30;
  o.noise = 0;
  auto quiet = simulate_strategy(s, Strategy::Evolution, o);
  o.noise = 3;
  auto noisy = simulate_strategy(s, Strategy::Evolution, o);
  CHECK(quiet.reached == 30);
  CHECK(noisy.reached == 30);
  bool differs = false;
  for (size_t i = 0; i < quiet.runs.size(); ++i) differs = differs || quiet.runs[i].evaluations != noisy.runs[i].evaluations;
  CHECK(differs);
  CHECK(point_sigma(s.points.front()) == Approx(std::log(1.02 / 0.98) / 3.92));
}

TEST_CASE("on a synthetic hard space the model-guided strategies need far fewer evaluations than random") {
  MeasuredSpace s = parse_measured_space(space_text(test::synthetic_manifest(), hard_time), "hard.jsonl");
  SimulationOptions o;
  o.seeds = 100;
  auto random = simulate_strategy(s, Strategy::Random, o);
  auto evolution = simulate_strategy(s, Strategy::Evolution, o);
  auto tpe = simulate_strategy(s, Strategy::Tpe, o);
  std::printf("synthetic hard space: %zu points, %zu within 5%%; median evaluations random %.1f, evolution %.1f "
              "(%.2fx), tpe %.1f (%.2fx)\n",
              s.points.size(), s.within(0.05), random.median, evolution.median, random.median / evolution.median,
              tpe.median, random.median / tpe.median);
  CHECK(random.reached == 100);
  CHECK(evolution.reached == 100);
  CHECK(tpe.reached == 100);
  CHECK(random.median / evolution.median >= 2.5);
  CHECK(random.median / tpe.median >= 2.5);
}

}  // namespace
}  // namespace ar
