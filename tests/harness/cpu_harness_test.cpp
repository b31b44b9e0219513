// The CPU harness end to end, as a child process speaking PROTOCOL.md: the
// device description, verification of the shipped kernel, interleaved
// benchmarking with the replay check, and every kind of failure as a reply.
#include <signal.h>

#include <algorithm>
#include <random>

#include "harness_fixture.h"

using namespace ar::test;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void require_all_distributions_pass(const json& r) {
  INFO(r.dump().substr(0, 2000));
  REQUIRE(r.at("ok") == true);
  REQUIRE(r.at("pass") == true);
  REQUIRE(r.at("distributions").size() == 7);
  for (const auto& d : r.at("distributions")) {
    CHECK(d.at("pass") == true);
    CHECK(d.at("outputs").at(0).at("nonfinite") == 0);
    CHECK(d.at("outputs").at(0).at("mismatches") == 0);
  }
}

}  // namespace

TEST_CASE("hello describes the CPU device", "[harness]") {
  auto h = start({});
  json r = reply(*h, {{"cmd", "hello"}});
  INFO(r.dump());
  REQUIRE(r.at("ok") == true);
  CHECK(r.at("protocol") == 1);
  const json& d = r.at("device");
  CHECK(d.at("kind") == "cpu");
  CHECK(!d.at("name").get<std::string>().empty());
  CHECK(d.at("cores").get<int>() >= 1);
  CHECK(d.at("cache_bytes").get<double>() > 0);
  CHECK(d.at("peak_bytes_per_s").get<double>() > 1e8);
  CHECK(d.at("peak_flops").get<double>() > 1e8);
  CHECK(d.at("default_sm_mhz") == -1);
  CHECK(reply(*h, {{"cmd", "quit"}}).at("ok") == true);
  CHECK(h->wait_exit() == 0);
}

TEST_CASE("the shipped and a tuned kernel verify on every workload", "[harness]") {
  auto h = start({{"inc", "default"}, {"cand", "tuned"}});
  std::vector<json> workloads;
  for (const auto& w : manifest().at("workloads")) workloads.push_back(workload(w.at("name")));
  // Shapes like the hidden ones the driver draws: edges of every kind.
  std::mt19937 rng(2024);
  for (int i = 0; i < 4; ++i)
    workloads.push_back(shape("hidden" + std::to_string(i), 1 + static_cast<int>(rng() % 256),
                              1 + static_cast<int>(rng() % 256), 1 + static_cast<int>(rng() % 256),
                              static_cast<int>(rng() % 2) * 5));
  for (const auto& w : workloads) {
    for (const char* slot : {"inc", "cand"}) {
      INFO(slot << " on " << w.dump());
      json r = reply(*h, verify_request(slot, w));
      require_all_distributions_pass(r);
      CHECK(r.at("seconds").get<double>() > 0);
      // The parts of the verification's time add up to no more than its whole.
      double parts = 0;
      for (const char* part : {"prepare", "inputs", "candidate", "fingerprints", "reference", "checks"}) {
        const double s = r.at("timing").at(part).get<double>();
        CHECK(s >= 0);
        parts += s;
      }
      CHECK(parts <= r.at("seconds").get<double>() + 1e-6);
      CHECK(r.at("timing").at("reference").get<double>() > 0);
    }
  }
}

TEST_CASE("bench interleaves slots and checks one timed replay", "[harness]") {
  auto h = start({{"inc", "default"}, {"cand", "tuned"}});

  SECTION("aligned samples, replay check, and the faster kernel measures faster") {
    json rq = bench_request({"inc", "cand"}, workload("sq192"));
    rq["replay_check"] = {{"slot", "cand"}, {"tolerances", tolerances()}};
    json r = reply(*h, rq);
    INFO(r.dump().substr(0, 3000));
    REQUIRE(r.at("ok") == true);
    const auto rounds = r.at("rounds").get<size_t>();
    CHECK(rounds >= 10);
    CHECK(r.at("dropped_rounds") == 0);
    const int rotations = r.at("rotations").get<int>();
    CHECK(rotations >= 2);
    CHECK(rotations <= 64);
    auto inc = r.at("samples").at("inc").get<std::vector<double>>();
    auto cand = r.at("samples").at("cand").get<std::vector<double>>();
    REQUIRE(inc.size() == rounds);
    REQUIRE(cand.size() == rounds);
    CHECK(r.at("sm_mhz").at("inc").size() == rounds);
    CHECK(std::all_of(inc.begin(), inc.end(), [](double x) { return x > 0; }));
    CHECK(std::all_of(cand.begin(), cand.end(), [](double x) { return x > 0; }));
    // The tuned kernel is several times faster; interleaving keeps that visible
    // even on a busy machine.
    CHECK(median(cand) < median(inc));
    const json& replay = r.at("replay_check");
    CHECK(replay.at("slot") == "cand");
    CHECK(replay.at("pass") == true);
    CHECK(replay.at("round").get<int>() >= 1);
    CHECK(replay.at("round").get<size_t>() < rounds);   // re-randomised inside the measurement
    // Every timed replay of the checked slot was fingerprinted (warm-up and the final check included).
    CHECK(replay.at("fingerprinted_replays").get<size_t>() > rounds);
    CHECK(replay.at("check_slots") == json::array({"cand"}));
    CHECK(r.at("seconds").get<double>() >= 0.2);
    CHECK(r.at("clock").at("mean_sm_mhz") == -1);
  }

  SECTION("cold samples on a tiny workload") {
    json rq = bench_request({"cand", "inc"}, workload("odd_17x5x33"));
    rq["cold"] = true;
    rq["min_samples"] = 5;
    rq["min_seconds"] = 0.0;
    rq["max_seconds"] = 3.0;
    json r = reply(*h, rq);
    INFO(r.dump().substr(0, 2000));
    REQUIRE(r.at("ok") == true);
    CHECK(r.at("rounds").get<int>() >= 5);
    CHECK(r.at("rotations") == 64);  // a tiny rotation: capped, not thousands
  }

  SECTION("max_samples and max_seconds bound a bench that never converges") {
    json rq = bench_request({"inc"}, workload("odd_17x5x33"));
    rq["min_samples"] = 3;
    rq["min_seconds"] = 0.0;
    rq["target_rel_ci"] = -1.0;  // never met: a ~1 us kernel can have a zero-width CI
    rq["max_samples"] = 7;
    json r = reply(*h, rq);
    CHECK(r.at("rounds") == 7);
    CHECK(r.at("stop") == "max_samples");

    rq["max_samples"] = 100000000;
    rq["max_seconds"] = 0.3;
    r = reply(*h, rq);
    CHECK(r.at("stop") == "max_seconds");
    CHECK(r.at("seconds").get<double>() < 3.0);
  }

  SECTION("one artifact in two slots, and a reload, share no state") {
    // first_call_flag only sets a flag on its first call. A slot sharing the
    // mapping of another would be loaded (and snapshot) with the flag already
    // set, and never be caught; with a private copy per load, each slot and
    // each reload starts clear and is caught on its own first call.
    auto caught = [&](const char* slot) {
      json r = reply(*h, verify_request(slot, workload("odd_17x5x33")));
      INFO(slot << ": " << r.dump().substr(0, 1500));
      return r.value("kind", "") == "guard" && r.value("rule", "") == "state";
    };
    auto load = [&](const char* slot) {
      REQUIRE(reply(*h, {{"cmd", "load"}, {"slot", slot}, {"artifact", artifact("first_call_flag")}}).at("ok") == true);
    };
    load("a");
    CHECK(caught("a"));
    load("b");
    CHECK(caught("b"));
    load("a");
    CHECK(caught("a"));
  }
}

TEST_CASE("load failures are load_error replies and leave the slot empty", "[harness]") {
  auto h = start({{"cand", "default"}});
  SECTION("no ar_kernel symbol") {
    json r = reply(*h, {{"cmd", "load"}, {"slot", "cand"}, {"artifact", artifact("no_symbol")}});
    INFO(r.dump());
    CHECK(r.at("ok") == false);
    CHECK(r.at("kind") == "load_error");
    CHECK(r.at("slot") == "cand");
    CHECK(r.at("error").get<std::string>().find("ar_kernel") != std::string::npos);
  }
  SECTION("a missing file") {
    json r = reply(*h, {{"cmd", "load"}, {"slot", "cand"}, {"artifact", "/nonexistent/k.so"}});
    CHECK(r.at("kind") == "load_error");
  }
  SECTION("not a shared object") {
    json r = reply(*h, {{"cmd", "load"}, {"slot", "cand"}, {"artifact", AR_MATMUL_MANIFEST}});
    CHECK(r.at("kind") == "load_error");
  }
  json v = reply(*h, verify_request("cand", workload("odd_17x5x33")));
  CHECK(v.at("ok") == false);
  CHECK(v.at("kind") == "bad_request");
}

TEST_CASE("a crashing kernel takes the harness down", "[harness]") {
  auto h = start({{"cand", "segfault"}});
  auto r = h->request(verify_request("cand", workload("odd_17x5x33")), 60);
  CHECK_FALSE(r);
  CHECK_FALSE(h->timed_out());
  CHECK(h->wait_exit() == 128 + SIGSEGV);
}

TEST_CASE("protocol errors are replies, never a dead harness", "[harness]") {
  auto h = start({{"cand", "default"}});
  auto kind = [&](const json& r) { return r.value("kind", std::string("none")); };

  CHECK(kind(*h->request_text("{not json")) == "bad_request");
  CHECK(kind(*h->request_text("[1,2]")) == "bad_request");
  CHECK(kind(reply(*h, {{"cmd", "dance"}})) == "bad_request");
  CHECK(kind(reply(*h, {{"verb", "hello"}})) == "bad_request");

  json missing = verify_request("cand", workload("sq192"));
  missing.erase("tolerances");
  json r = reply(*h, missing);
  CHECK(kind(r) == "bad_request");
  CHECK(r.at("error").get<std::string>().find("tolerances") != std::string::npos);

  r = reply(*h, verify_request("nobody", workload("sq192")));
  CHECK(kind(r) == "bad_request");
  CHECK(r.at("slot") == "nobody");

  r = reply(*h, verify_request("cand", shape("bad", 0, 4, 4)));
  CHECK(kind(r) == "problem_error");
  CHECK(r.at("error").get<std::string>().find("'m'") != std::string::npos);

  json bench = bench_request({"cand"}, workload("sq192"));
  bench["replay_check"] = {{"slot", "inc"}, {"tolerances", tolerances()}};
  CHECK(kind(reply(*h, bench)) == "bad_request");

  r = reply(*h, {{"cmd", "hello"}, {"id", 17}});
  CHECK(r.at("id") == 17);
  // Still serving after all of that.
  r = reply(*h, verify_request("cand", workload("odd_17x5x33")));
  CHECK(r.at("pass") == true);
  CHECK(reply(*h, {{"cmd", "quit"}}).at("ok") == true);
  CHECK(h->wait_exit() == 0);
}
