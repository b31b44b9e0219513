// Planted cheating candidates (tests/harness/cheats/) against the harness's
// guards: each guard meets at least two different cheats, and each cheat is
// caught for the reason it deserves, not by accident.
#include <algorithm>

#include "harness_fixture.h"

using namespace ar::test;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

json verify_cheat(const std::string& cheat, const json& w, bool deterministic = true) {
  auto h = start({{"cand", cheat}});
  json r = reply(*h, verify_request("cand", w, 42, deterministic));
  REQUIRE(r.at("ok") == true);
  return r;
}

}  // namespace

TEST_CASE("poison catches outputs left unwritten", "[harness]") {
  json r = verify_cheat("skip_last_row", workload("sq192"));
  INFO(r.dump().substr(0, 1500));
  CHECK(r.at("pass") == false);
  CHECK(contains(reason(r), "non-finite"));
  CHECK(contains(reason(r), "c[191,"));

  CHECK(verify_cheat("full_tiles_only", workload("sq192")).at("pass") == true);
  r = verify_cheat("full_tiles_only", workload("odd_232x152x184"));
  CHECK(r.at("pass") == false);
  CHECK(contains(reason(r), "non-finite"));
}

TEST_CASE("the input fingerprint catches writes to the inputs", "[harness]") {
  for (const char* cheat : {"writes_a", "prescales_b"}) {
    json r = verify_cheat(cheat, workload("odd_232x152x184"));
    INFO(cheat << ": " << r.dump().substr(0, 1500));
    CHECK(r.at("pass") == false);
    CHECK(contains(reason(r), "modified its inputs"));
  }
}

TEST_CASE("padded strides catch kernels that ignore the layout", "[harness]") {
  for (const char* cheat : {"writes_padding", "ignores_strides"}) {
    CHECK(verify_cheat(cheat, workload("sq192")).at("pass") == true);
    json r = verify_cheat(cheat, workload("padded_128x96x80"));
    INFO(cheat << ": " << r.dump().substr(0, 1500));
    CHECK(r.at("pass") == false);
  }
  json r = verify_cheat("writes_padding", workload("padded_37x29x41"));
  CHECK(contains(reason(r), "padding"));
}

TEST_CASE("results cached across calls are caught", "[harness]") {
  SECTION("from the first call: verify's next distribution gets a stale answer") {
    json r = verify_cheat("pointer_cache", workload("sq192"));
    INFO(r.dump().substr(0, 1500));
    CHECK(r.at("pass") == false);
    CHECK(r.at("distributions").at(0).at("pass") == true);
    CHECK(contains(reason(r), "outside tolerance"));
  }
  SECTION("only after verify's calls: the bench replay check catches it") {
    auto h = start({{"inc", "default"}, {"cand", "pointer_cache_late"}});
    json v = reply(*h, verify_request("cand", workload("sq192")));
    INFO(v.dump().substr(0, 1500));
    REQUIRE(v.at("pass") == true);  // the cheat beats verify alone...
    json rq = bench_request({"inc", "cand"}, workload("sq192"));
    rq["replay_check"] = {{"slot", "cand"}, {"tolerances", tolerances()}};
    json r = reply(*h, rq);
    INFO(r.dump().substr(0, 3000));
    REQUIRE(r.at("ok") == true);
    const json& replay = r.at("replay_check");
    CHECK(replay.at("pass") == false);  // ...but not the timed replay
    CHECK(contains(replay.at("reason").get<std::string>(), "outside tolerance"));
  }
}

TEST_CASE("a kernel that reuses what is already in C gains nothing in the bench", "[harness]") {
  for (const char* cheat : {"reuses_output", "reuses_output_rows"}) {
    auto h = start({{"inc", "default"}, {"cand", cheat}});
    REQUIRE(reply(*h, verify_request("cand", workload("sq192"))).at("pass") == true);
    json rq = bench_request({"inc", "cand"}, workload("sq192"));
    rq["replay_check"] = {{"slot", "cand"}, {"tolerances", tolerances()}};
    json r = reply(*h, rq);
    INFO(cheat << ": " << r.dump().substr(0, 2000));
    REQUIRE(r.at("ok") == true);
    // Unpoisoned, every sample after the incumbent's would be ~free. The two
    // are the same kernel otherwise, so their medians must be comparable.
    const double inc = median(r.at("samples").at("inc").get<std::vector<double>>());
    const double cand = median(r.at("samples").at("cand").get<std::vector<double>>());
    CHECK(cand > 0.1 * inc);
  }
}

TEST_CASE("a kernel wrong only on large shapes fails the largest workload", "[harness]") {
  CHECK(verify_cheat("large_only_wrong", workload("sq192")).at("pass") == true);
  CHECK(verify_cheat("large_only_wrong", workload("odd_232x152x184")).at("pass") == true);
  json r = verify_cheat("large_only_wrong", workload("sq256"));
  CHECK(r.at("pass") == false);
  CHECK(contains(reason(r), "outside tolerance"));
}

TEST_CASE("run-to-run differences fail a deterministic kernel", "[harness]") {
  for (const char* cheat : {"rand_noise", "alternating_order"}) {
    json r = verify_cheat(cheat, workload("odd_232x152x184"));
    INFO(cheat << ": " << r.dump().substr(0, 1500));
    CHECK(r.at("pass") == false);
    CHECK(contains(reason(r), "differ bitwise"));
    // Declared nondeterministic, each run only has to be within tolerance.
    CHECK(verify_cheat(cheat, workload("odd_232x152x184"), false).at("pass") == true);
  }
}

TEST_CASE("results beyond the tolerance fail", "[harness]") {
  for (const char* cheat : {"bf16_inputs", "scaled_result"}) {
    json r = verify_cheat(cheat, workload("sq192"));
    INFO(cheat << ": " << r.dump().substr(0, 1500));
    CHECK(r.at("pass") == false);
    CHECK(contains(reason(r), "outside tolerance"));
  }
}

TEST_CASE("a kernel printing on stdout cannot forge a reply", "[harness]") {
  json r = verify_cheat("prints_reply", workload("odd_17x5x33"));
  CHECK_FALSE(r.contains("forged"));
  CHECK(r.at("pass") == true);
  CHECK(r.at("distributions").size() == 4);
}
