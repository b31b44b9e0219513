#include <fstream>

#include "autoresearch/agents/result_cache.h"
#include "autoresearch/util/fs.h"
#include "tuner_fixtures.h"

namespace ar {
namespace {

CacheContext context() {
  return {"src-hash", "nvcc 12.4 -O3", "harness-hash", "workloads-hash", "H200 / 550.54"};
}

CachedResult result(const std::string& key, Tunables t, std::optional<double> geomean) {
  CachedResult r;
  r.context_key = key;
  r.tunables = std::move(t);
  r.outcome.decision = geomean ? Decision::Discard : Decision::BuildError;
  r.outcome.reason = geomean ? "slower" : "ptxas error";
  r.outcome.quick_geomean_us = geomean;
  if (geomean) r.median_us = {{"b1", *geomean}, {"b64", *geomean * 2}};
  r.run_id = "run-1";
  r.candidate_id = 3;
  return r;
}

TEST_CASE("the context key changes with every field") {
  const std::string base = context().key();
  CHECK(base.size() == 64);
  CHECK(context().key() == base);
  for (int field = 0; field < 5; ++field) {
    CacheContext c = context();
    std::string* s[] = {&c.source_hash, &c.compiler, &c.harness_hash, &c.workloads_hash, &c.device};
    *s[field] += "x";
    CHECK(c.key() != base);
  }
  // Moving text across a field boundary is a different context too.
  CacheContext a{"ab", "c", "", "", ""};
  CacheContext b{"a", "bc", "", "", ""};
  CHECK(a.key() != b.key());
}

TEST_CASE("an in-memory cache finds by context and tunables") {
  ResultCache cache;
  cache.add(result("k1", {{"A", 1}, {"B", 2}}, 10.0));
  cache.add(result("k1", {{"A", 2}, {"B", 2}}, std::nullopt));
  cache.add(result("k2", {{"A", 1}, {"B", 2}}, 20.0));
  CHECK(cache.size() == 3);
  const CachedResult* r = cache.find("k1", {{"B", 2}, {"A", 1}});
  REQUIRE(r != nullptr);
  CHECK(*r->outcome.quick_geomean_us == Approx(10.0));
  CHECK(cache.find("k3", {{"A", 1}, {"B", 2}}) == nullptr);
  CHECK(cache.find("k1", {{"A", 3}, {"B", 2}}) == nullptr);
  CHECK(cache.all_for("k1").size() == 2);
  CHECK(cache.all_for("k2").size() == 1);

  // A second result for the same configuration replaces the first.
  cache.add(result("k1", {{"A", 1}, {"B", 2}}, 9.0));
  CHECK(cache.size() == 3);
  CHECK(*cache.find("k1", {{"A", 1}, {"B", 2}})->outcome.quick_geomean_us == Approx(9.0));
}

TEST_CASE("JSON round trip keeps every field") {
  CachedResult r = result("k", {{"TILE", 64}, {"NEG", -1}}, 12.5);
  r.outcome.speedup = 1.07;
  CachedResult back = cached_result_from_json(nlohmann::json::parse(to_json(r).dump()));
  CHECK(back.context_key == "k");
  CHECK(back.tunables == r.tunables);
  CHECK(back.outcome.decision == Decision::Discard);
  CHECK(back.outcome.reason == "slower");
  CHECK(*back.outcome.quick_geomean_us == Approx(12.5));
  CHECK(*back.outcome.speedup == Approx(1.07));
  CHECK(back.median_us == r.median_us);
  CHECK(back.run_id == "run-1");
  CHECK(back.candidate_id == 3);

  CachedResult failed = cached_result_from_json(to_json(result("k", {{"A", 1}}, std::nullopt)));
  CHECK_FALSE(failed.outcome.quick_geomean_us.has_value());
  CHECK_FALSE(failed.outcome.speedup.has_value());
}

TEST_CASE("a file-backed cache creates its folder lazily and reloads") {
  test::ScratchDir dir;
  std::filesystem::path file = dir.path() / ".autoresearch" / "cache" / "results.jsonl";
  {
    ResultCache cache(file);
    CHECK(cache.size() == 0);
    CHECK_FALSE(std::filesystem::exists(dir.path()));  // nothing written until the first add
    cache.add(result("k", {{"A", 1}}, 5.0));
    cache.add(result("k", {{"A", 2}}, std::nullopt));
  }
  CHECK(std::filesystem::exists(file));
  ResultCache again(file);
  CHECK(again.size() == 2);
  REQUIRE(again.find("k", {{"A", 1}}) != nullptr);
  CHECK(*again.find("k", {{"A", 1}})->outcome.quick_geomean_us == Approx(5.0));
  REQUIRE(again.find("k", {{"A", 2}}) != nullptr);
  CHECK(again.find("k", {{"A", 2}})->outcome.decision == Decision::BuildError);
}

TEST_CASE("a torn last line is ignored, and the next append does not glue onto it") {
  test::ScratchDir dir;
  std::filesystem::create_directories(dir.path());
  std::filesystem::path file = dir.path() / "results.jsonl";
  {
    ResultCache cache(file);
    cache.add(result("k", {{"A", 1}}, 5.0));
    cache.add(result("k", {{"A", 2}}, 6.0));
  }
  {
    std::ofstream out(file, std::ios::app);
    out << R"({"v":1,"context":"k","tunables":{"A":3},"outc)";  // a crash mid-append
  }
  {
    ResultCache cache(file);
    CHECK(cache.size() == 2);
    cache.add(result("k", {{"A", 4}}, 7.0));
  }
  ResultCache reloaded(file);
  CHECK(reloaded.size() == 3);
  CHECK(reloaded.find("k", {{"A", 3}}) == nullptr);
  CHECK(reloaded.find("k", {{"A", 4}}) != nullptr);
}

TEST_CASE("lines of a wrong shape or a newer format are skipped") {
  test::ScratchDir dir;
  std::filesystem::create_directories(dir.path());
  std::filesystem::path file = dir.path() / "results.jsonl";
  {
    std::ofstream out(file);
    out << to_json(result("k", {{"A", 1}}, 5.0)).dump() << "\n";
    out << "not json\n";
    out << R"({"v":1,"context":"k"})" << "\n";                              // no tunables
    out << R"({"v":99,"context":"k","tunables":{"A":7},"outcome":{}})" << "\n";  // newer
    out << "\n";
    out << to_json(result("k", {{"A", 2}}, 6.0)).dump() << "\n";
  }
  ResultCache cache(file);
  CHECK(cache.size() == 2);
  CHECK(cache.find("k", {{"A", 7}}) == nullptr);
}

}  // namespace
}  // namespace ar
