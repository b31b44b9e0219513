#include "autoresearch/agents/tuner.h"
#include "tuner_fixtures.h"

namespace ar {
namespace {

using test::toy_manifest;

TEST_CASE("canonical text is sorted by name") {
  CHECK(canonical({{"B", 2}, {"A", 1}}) == "A=1,B=2");
  CHECK(canonical({}) == "");
  CHECK(canonical({{"X", -3}}) == "X=-3");
}

TEST_CASE("feasible checks names, allowed values and constraints") {
  Manifest m = toy_manifest();
  SearchSpace space(m);
  std::string why;
  CHECK(space.feasible({{"TILE", 16}, {"UNROLL", 2}, {"VEC", 8}}, &why));
  CHECK_FALSE(space.feasible({{"TILE", 32}, {"UNROLL", 2}, {"VEC", 8}}, &why));
  CHECK(why.find("TILE * VEC <= 128") != std::string::npos);
  CHECK_FALSE(space.feasible({{"TILE", 12}, {"UNROLL", 2}, {"VEC", 1}}, &why));
  CHECK(why.find("TILE=12") != std::string::npos);
  CHECK_FALSE(space.feasible({{"TILE", 16}, {"UNROLL", 2}}, &why));
  CHECK_FALSE(space.feasible({{"TILE", 16}, {"UNROLL", 2}, {"VEC", 1}, {"EXTRA", 1}}, &why));
}

TEST_CASE("a constraint that cannot be evaluated makes the point infeasible") {
  Manifest m = toy_manifest();
  m.constraints.push_back(test::parse_expr("TILE / (UNROLL - 1) > 0"));  // divides by zero at UNROLL=1
  SearchSpace space(m);
  std::string why;
  CHECK_FALSE(space.feasible({{"TILE", 16}, {"UNROLL", 1}, {"VEC", 1}}, &why));
  CHECK(space.feasible({{"TILE", 16}, {"UNROLL", 2}, {"VEC", 1}}));
}

TEST_CASE("neighbours move one tunable one place along its list") {
  Manifest m = toy_manifest();
  SearchSpace space(m);
  std::vector<Tunables> n = space.neighbours({{"TILE", 8}, {"UNROLL", 2}, {"VEC", 8}});
  // TILE: only up; UNROLL: both ways; VEC: only down.
  REQUIRE(n.size() == 4);
  CHECK(n[0] == Tunables{{"TILE", 16}, {"UNROLL", 2}, {"VEC", 8}});
  CHECK(n[1] == Tunables{{"TILE", 8}, {"UNROLL", 1}, {"VEC", 8}});
  CHECK(n[2] == Tunables{{"TILE", 8}, {"UNROLL", 4}, {"VEC", 8}});
  CHECK(n[3] == Tunables{{"TILE", 8}, {"UNROLL", 2}, {"VEC", 4}});
}

TEST_CASE("size, enumeration and random points cover the declared space") {
  Manifest m = toy_manifest();
  SearchSpace space(m);
  CHECK(space.size() == Approx(48));
  std::vector<uint64_t> codes = space.feasible_codes();
  CHECK(codes.size() == 39);
  std::set<std::string> distinct;
  for (uint64_t c : codes) {
    Tunables t = space.decode(c);
    CHECK(space.feasible(t));
    distinct.insert(canonical(t));
  }
  CHECK(distinct.size() == 39);

  std::mt19937_64 rng(7);
  std::set<std::string> drawn;
  for (int i = 0; i < 2000; ++i) {
    Tunables t = space.random_point(rng);
    REQUIRE(t.size() == 3);
    drawn.insert(canonical(t));
  }
  CHECK(drawn.size() == 48);  // every point, feasible or not, is reachable
}

TEST_CASE("indices map off-list values to the nearest allowed one") {
  Manifest m = toy_manifest();
  SearchSpace space(m);
  CHECK(space.indices({{"TILE", 30}, {"UNROLL", 4}}) == std::vector<size_t>{2, 2, 0});
  CHECK(space.at({3, 0, 1}) == Tunables{{"TILE", 64}, {"UNROLL", 1}, {"VEC", 2}});
}

}  // namespace
}  // namespace ar
