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

TEST_CASE("results cached across calls are caught on the call that stores them", "[harness]") {
  // The caches live in the library's statics, so the writable-data check
  // (cpu_guards_test.cpp) stops them before any comparison; the late one, which
  // would beat verify alone and was once left to the bench's replay check, is
  // stopped just as early: storing is already keeping state.
  for (const char* cheat : {"pointer_cache", "pointer_cache_late"}) {
    auto h = start({{"cand", cheat}});
    json r = reply(*h, verify_request("cand", workload("sq192")));
    INFO(cheat << ": " << r.dump().substr(0, 1500));
    CHECK(r.at("ok") == false);
    CHECK(r.value("kind", "") == "guard");
    CHECK(r.value("rule", "") == "state");
    CHECK(contains(r.value("error", ""), "keeps state across calls"));
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
  // Stateless noise only: a kernel that varies by call count keeps state, and
  // the state guard stops it first (alternating_order, cpu_guards_test.cpp).
  for (const char* cheat : {"rand_noise", "rdrand_noise"}) {
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
  CHECK(r.at("distributions").size() == 7);
}
