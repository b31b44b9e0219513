// The harness core's structural guards (issue 7) against a fake device and
// problem (fake_world.h), through the protocol's own dispatch (Server): every
// timed replay checked, re-randomised checks inside and after the
// measurement, the verdict out of the kernel's reach, inputs and module state
// unchanged. Each guard meets an honest kernel (no false alarm) and cheats.
#include <algorithm>
#include <cmath>
#include <memory>

#include "catch.h"
#include "common/server.h"
#include "fake_world.h"

using namespace ar::test;
using ar::harness::Server;

namespace {

struct World {
  FakeProblem problem;
  FakeDevice device{problem};
  Server server{device, problem};

  World() {
    device.kernels["honest"] = honest;
  }
  json load(const std::string& slot, const std::string& artifact) {
    json r = server.handle({{"cmd", "load"}, {"slot", slot}, {"artifact", artifact}});
    INFO(r.dump());
    REQUIRE(r.at("ok") == true);
    return r;
  }
  json call(const json& rq) { return server.handle(rq); }
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

long long checked_launches(FakeDevice& d, const std::vector<std::string>& slots) {
  long long n = 0;
  for (const auto& s : slots) n += d.timed_launches[s];
  return n;
}

}  // namespace

TEST_CASE("an honest deterministic kernel: every timed replay is fingerprinted, no alarm", "[harness-core]") {
  World w;
  w.load("inc", "honest");
  w.load("cand", "honest");
  json r = w.call(fake_bench({"inc", "cand"}, 200));
  INFO(r.dump().substr(0, 3000));
  REQUIRE(r.at("ok") == true);
  CHECK(r.at("rounds") == 200);
  const json& rc = r.at("replay_check");
  CHECK(rc.at("pass") == true);
  CHECK(rc.at("check_slots") == json::array({"inc", "cand"}));
  // Every replay of the graph (warm-up, samples, the final check) was fingerprinted.
  CHECK(rc.at("fingerprinted_replays").get<long long>() == checked_launches(w.device, {"inc", "cand"}));
  CHECK(w.device.timed_launches["cand"] >= 200 + 3 + 1);
  // The re-randomised round lies inside the measurement, and the final check ran for both slots.
  CHECK(rc.at("round").get<long long>() >= 1);
  CHECK(rc.at("round").get<long long>() < 200);
  int final_checks = 0, rerandomised = 0, eager = 0;
  for (const auto& c : rc.at("checks")) {
    CHECK(c.at("pass") == true);
    final_checks += c.at("what") == "final";
    rerandomised += c.at("what") == "rerandomised";
    eager += c.at("what") == "eager";
  }
  CHECK(final_checks == 2);
  CHECK(rerandomised == 2);
  CHECK(eager == 2 * 8);   // 8 rotations, each slot's eager run on each checked against the reference
}

TEST_CASE("without a replay_check nothing is checked and the reply has none", "[harness-core]") {
  World w;
  w.device.kernels["lazy"] = [](FakeDevice& d, FakeProblem& p, const Launch& l) {
    if (!l.timed) honest(d, p, l);
  };
  w.load("a", "lazy");
  json rq = fake_bench({"a"}, 20);
  rq.erase("replay_check");
  json r = w.call(rq);
  INFO(r.dump().substr(0, 1000));
  REQUIRE(r.at("ok") == true);
  CHECK_FALSE(r.contains("replay_check"));
  CHECK(r.at("rounds") == 20);
  CHECK(w.device.launches["a"] == w.device.timed_launches["a"]);   // no eager runs either
}

TEST_CASE("a kernel that skips work after N timed launches is caught on that replay", "[harness-core]") {
  World w;
  for (long long n : {0LL, 37LL, 150LL}) {
    const std::string name = "lazy" + std::to_string(n);
    w.device.kernels[name] = [n](FakeDevice& d, FakeProblem& p, const Launch& l) {
      if (l.timed && l.timed_number >= n) return;   // leaves the poison: "fast once timed"
      honest(d, p, l);
    };
    w.load("cand", name);
    json r = w.call(fake_bench({"cand"}, 300));
    INFO(n << ": " << r.dump().substr(0, 2000));
    // Caught by the fingerprint, or (when its first lazy replay happens to be
    // the re-randomised round, where no verified output exists yet) by that
    // round's check against the reference.
    if (r.at("ok") == true) {
      CHECK(r.at("replay_check").at("pass") == false);
      CHECK(contains(r.at("replay_check").at("reason"), "re-randomised"));
    } else {
      CHECK(r.at("kind") == "guard");
      CHECK(r.at("rule") == "timed-replay");
      CHECK(r.at("slot") == "cand");
      CHECK(contains(r.at("error"), "differs from the verified output: the kernel behaves differently once timed"));
      CHECK(r.contains("rotation"));
    }
    // Caught on the very replay where it started: warm-up replays are rounds 0..2 of their own count.
    CHECK(w.device.timed_launches["cand"] == n + 1);
  }
}

TEST_CASE("a kernel honest when launched eagerly but not when replayed is caught in the warm-up", "[harness-core]") {
  World w;
  w.device.kernels["eager_only"] = [](FakeDevice& d, FakeProblem& p, const Launch& l) {
    honest(d, p, l);
    if (l.timed) p.at(l.rotation).y[3] += 1e-6;   // inside no tolerance, but not the same bits
  };
  w.load("cand", "eager_only");
  json r = w.call(fake_bench({"cand"}, 50));
  REQUIRE(r.at("ok") == false);
  CHECK(r.at("rule") == "timed-replay");
  CHECK(r.at("replay") == "warm-up");
  CHECK(contains(r.at("error"), "warm-up replay 0 (rotation 0)"));
}

TEST_CASE("only the checked slots are fingerprinted", "[harness-core]") {
  World w;
  w.device.kernels["lazy"] = [](FakeDevice& d, FakeProblem& p, const Launch& l) {
    if (!l.timed) honest(d, p, l);
  };
  w.load("inc", "lazy");
  w.load("cand", "honest");
  json rq = fake_bench({"inc", "cand"}, 40);
  rq["replay_check"]["check_slots"] = {"cand"};
  json r = w.call(rq);
  INFO(r.dump().substr(0, 2000));
  REQUIRE(r.at("ok") == true);
  CHECK(r.at("replay_check").at("check_slots") == json::array({"cand"}));
  CHECK(r.at("replay_check").at("fingerprinted_replays") == w.device.timed_launches["cand"]);

  rq["replay_check"].erase("check_slots");
  rq["replay_check"]["slot"] = "inc";   // protocol 1's spelling
  r = w.call(rq);
  CHECK(r.at("rule") == "timed-replay");
  CHECK(r.at("slot") == "inc");
}

TEST_CASE("a cache keyed on the buffers is caught by the re-randomised checks", "[harness-core]") {
  World w;
  // Keeps answers where the module state cannot see them (like allocation
  // padding): honest once per rotation, then serves the stored answer.
  auto cache = std::make_shared<std::map<int, std::vector<double>>>();
  w.device.kernels["address_cache"] = [cache](FakeDevice& d, FakeProblem& p, const Launch& l) {
    auto it = cache->find(l.rotation);
    if (it != cache->end()) {
      p.at(l.rotation).y = it->second;
      return;
    }
    honest(d, p, l);
    (*cache)[l.rotation] = p.at(l.rotation).y;
  };
  w.load("cand", "address_cache");
  json r = w.call(fake_bench({"cand"}, 100));
  INFO(r.dump().substr(0, 3000));
  REQUIRE(r.at("ok") == true);   // a wrong kernel, not a guard: the reply carries the samples so far
  const json& rc = r.at("replay_check");
  CHECK(rc.at("pass") == false);
  CHECK(r.at("stop") == "wrong");
  CHECK(contains(rc.at("reason"), "on re-randomised inputs is wrong"));
  CHECK(static_cast<long long>(r.at("rounds")) == rc.at("round").get<long long>());
}

TEST_CASE("a kernel that starts cheating right after the last round meets the final check", "[harness-core]") {
  World w;
  // Counts its launches where no guard looks: 8 eager runs, 3 warm-up
  // replays, 1 round, then the replay after the last round (the 13th launch).
  auto calls = std::make_shared<long long>(0);
  w.device.kernels["late"] = [calls](FakeDevice& d, FakeProblem& p, const Launch& l) {
    if (++*calls > 12) {
      p.at(l.rotation).y.assign(p.n(), 0.0);
      return;
    }
    honest(d, p, l);
  };
  w.load("cand", "late");
  json rq = fake_bench({"cand"}, 1);
  rq["min_samples"] = 1;
  json r = w.call(rq);
  INFO(r.dump().substr(0, 3000));
  REQUIRE(r.at("ok") == true);
  CHECK(r.at("rounds") == 1);
  CHECK(*calls == 13);
  CHECK(r.at("replay_check").at("pass") == false);
  CHECK(contains(r.at("replay_check").at("reason"), "the replay after the last round"));
}

TEST_CASE("nondeterministic kernels: drawn replays and the last round get tolerance checks", "[harness-core]") {
  World w;
  w.device.kernels["noisy"] = [](FakeDevice& d, FakeProblem& p, const Launch& l) {
    honest(d, p, l);
    p.at(l.rotation).y[0] += 1e-12 * static_cast<double>(l.number % 3);   // within tolerance, bits vary
  };
  w.load("cand", "noisy");
  json tol = json::array({json{{"output", "y"}, {"abs", 1e-6}, {"rel", 0.0}}});

  json rq = fake_bench({"cand"}, 200, false);
  rq["replay_check"]["tolerances"] = tol;
  json r = w.call(rq);
  INFO(r.dump().substr(0, 3000));
  REQUIRE(r.at("ok") == true);
  const json& rc = r.at("replay_check");
  CHECK(rc.at("pass") == true);
  CHECK(rc.at("fingerprinted_replays") == 0);
  int timed = 0, last = 0;
  for (const auto& c : rc.at("checks")) {
    timed += c.at("what") == "timed";
    last += c.at("what") == "last";
  }
  CHECK(timed >= 3);   // spread with growing gaps: about 9 over 200 rounds
  CHECK(timed <= 20);
  CHECK(last == 1);
  CHECK(r.at("rounds") == 201);   // the checked last round is kept like the others

  // The same noise declared deterministic: a fingerprint mismatch.
  rq["deterministic"] = true;
  r = w.call(rq);
  CHECK(r.at("rule") == "timed-replay");

  // Wrong only late in the measurement: the last round at the latest catches it.
  w.device.kernels["noisy_late"] = [](FakeDevice& d, FakeProblem& p, const Launch& l) {
    honest(d, p, l);
    if (l.timed && l.timed_number > 150) p.at(l.rotation).y[0] += 1.0;
  };
  w.load("cand", "noisy_late");
  rq["deterministic"] = false;
  r = w.call(rq);
  INFO(r.dump().substr(0, 2000));
  REQUIRE(r.at("ok") == false);
  CHECK(r.at("rule") == "timed-replay");
  CHECK(contains(r.at("error"), "outside the tolerance"));
}

TEST_CASE("the verdict: a kernel that overwrites the reference is caught", "[harness-core]") {
  World w;
  // Writes its own (wrong) answer, and the same into the reference's buffer.
  w.device.kernels["tamper"] = [](FakeDevice&, FakeProblem& p, const Launch& l) {
    auto& r = p.at(l.rotation);
    for (int i = 0; i < p.n(); ++i) r.y[i] = r.ref[i] = 2.0 * r.x[i];
  };
  w.load("cand", "tamper");

  SECTION("verify") {
    json r = w.call(fake_verify("cand"));
    INFO(r.dump());
    REQUIRE(r.at("ok") == false);
    CHECK(r.at("kind") == "guard");
    CHECK(r.at("rule") == "verdict");
    CHECK(contains(r.at("error"), "the kernel wrote outside its outputs: the reference's buffers changed"));
  }
  SECTION("bench: a right answer, and a scribble on the reference another slot's check relies on") {
    w.device.kernels["scribbles_reference"] = [](FakeDevice& d, FakeProblem& p, const Launch& l) {
      honest(d, p, l);
      p.at(l.rotation).ref[0] += 1;
    };
    w.load("inc", "honest");
    w.load("cand", "scribbles_reference");
    json r = w.call(fake_bench({"inc", "cand"}, 30));
    INFO(r.dump().substr(0, 2000));
    REQUIRE(r.at("ok") == false);
    CHECK(r.at("rule") == "verdict");
    CHECK(r.at("slot") == "cand");
    // The same kernel through verify: its second run scribbles after the reference ran.
    r = w.call(fake_verify("cand"));
    CHECK(r.at("rule") == "verdict");
  }
  SECTION("a problem without reference fingerprints re-runs the reference after the kernel") {
    w.problem.fingerprint_reference = false;
    json r = w.call(fake_verify("cand"));
    INFO(r.dump());
    REQUIRE(r.at("ok") == true);
    CHECK(r.at("pass") == false);   // compared with a fresh reference: simply wrong
    CHECK(contains(r.at("reason"), "outside tolerance"));
  }
  SECTION("an honest kernel raises no verdict alarm") {
    w.load("cand", "honest");
    json r = w.call(fake_verify("cand"));
    CHECK(r.at("pass") == true);
  }
}

TEST_CASE("inputs written during a bench are a guard failure", "[harness-core]") {
  World w;
  w.device.kernels["scribbles"] = [](FakeDevice& d, FakeProblem& p, const Launch& l) {
    honest(d, p, l);
    if (l.timed && l.timed_number == 40) p.at(l.rotation).x[0] ^= 1;
  };
  w.load("cand", "scribbles");
  json r = w.call(fake_bench({"cand"}, 100));
  INFO(r.dump());
  REQUIRE(r.at("ok") == false);
  CHECK(r.at("rule") == "inputs");
  CHECK(contains(r.at("error"), "changed during the bench"));
}

TEST_CASE("an eager run wrong on the bench's inputs ends the bench as wrong", "[harness-core]") {
  World w;
  w.device.kernels["wrong"] = [](FakeDevice&, FakeProblem& p, const Launch& l) {
    p.at(l.rotation).y.assign(p.n(), 1.0);
  };
  w.load("cand", "wrong");
  json r = w.call(fake_bench({"cand"}, 100));
  REQUIRE(r.at("ok") == true);
  CHECK(r.at("replay_check").at("pass") == false);
  CHECK(r.at("rounds") == 0);
  CHECK(contains(r.at("replay_check").at("reason"), "the eager run"));
}

TEST_CASE("a problem that redraws every rotation at once raises no false alarm", "[harness-core]") {
  World w;
  w.problem.shared_inputs = true;
  w.load("cand", "honest");
  json r = w.call(fake_bench({"cand"}, 60));
  INFO(r.dump().substr(0, 2000));
  REQUIRE(r.at("ok") == true);
  CHECK(r.at("replay_check").at("pass") == true);
  CHECK(r.at("replay_check").at("redrawn_rotations").get<int>() >= 7);   // the mid round and the final one
}

TEST_CASE("verified_rotations bounds the eager checks; every rotation is still fingerprinted", "[harness-core]") {
  World w;
  w.device.cache = 4096;   // 32 rotations of 256 bytes
  w.load("cand", "honest");
  json rq = fake_bench({"cand"}, 40);
  json r = w.call(rq);
  REQUIRE(r.at("ok") == true);
  CHECK(r.at("rotations") == 32);
  const json& rc = r.at("replay_check");
  CHECK(rc.at("verified_rotations").size() == 8);
  // A kernel wrong on one rotation only, eagerly and timed alike: the
  // verified subset may miss it, but not when every rotation is verified.
  w.device.kernels["wrong_on_7"] = [](FakeDevice& d, FakeProblem& p, const Launch& l) {
    honest(d, p, l);
    if (l.rotation == 7) p.at(7).y[0] = -1;
  };
  w.load("cand", "wrong_on_7");
  rq["replay_check"]["verified_rotations"] = 64;
  r = w.call(rq);
  CHECK(r.at("replay_check").at("pass") == false);
  CHECK(contains(r.at("replay_check").at("reason"), "(rotation 7)"));
}

TEST_CASE("module state: a launch counter is caught after verify, during and after a bench", "[harness-core]") {
  World w;
  w.device.initial["counter"] = {{"g_calls", 0.0}, {"k_table", 3.0}};
  w.device.initial["const_table"] = {{"g_calls", 0.0}, {"k_table", 3.0}};
  w.device.kernels["counter"] = [](FakeDevice& d, FakeProblem& p, const Launch& l) {
    d.vars[l.slot]["g_calls"] += 1;
    honest(d, p, l);
  };
  w.device.kernels["const_table"] = [](FakeDevice& d, FakeProblem& p, const Launch& l) {
    if (l.timed) d.vars[l.slot]["k_table"] += 1;   // a "const" table written through an integer cast
    honest(d, p, l);
  };

  SECTION("verify") {
    w.load("cand", "counter");
    json r = w.call(fake_verify("cand"));
    INFO(r.dump());
    REQUIRE(r.at("ok") == false);
    CHECK(r.at("rule") == "state");
    CHECK(r.at("error") ==
          "keeps state across calls: __device__ global `g_calls` (8 bytes) changed between launches (slot cand, "
          "after verify)");
    // Reloaded: the next request starts from the state as loaded.
    CHECK(w.device.loads["cand"] == 2);
    CHECK(w.device.vars["cand"]["g_calls"] == 0.0);
  }
  SECTION("during a bench, named by round") {
    w.load("cand", "const_table");
    json r = w.call(fake_bench({"cand"}, 500));
    INFO(r.dump());
    REQUIRE(r.at("ok") == false);
    CHECK(r.at("rule") == "state");
    CHECK(contains(r.at("error"), "`k_table`"));
    CHECK(contains(r.at("error"), "during the bench, by round"));
  }
  SECTION("a slot that changes another slot's state: that slot is named and reloaded") {
    w.device.initial["victim"] = {{"g_flag", 1.0}};
    w.device.kernels["victim"] = honest;
    w.device.kernels["vandal"] = [](FakeDevice& d, FakeProblem& p, const Launch& l) {
      d.vars["inc"]["g_flag"] = 0.0;
      honest(d, p, l);
    };
    w.load("inc", "victim");
    w.load("cand", "vandal");
    json r = w.call(fake_verify("cand"));
    REQUIRE(r.at("rule") == "state");
    CHECK(r.at("slot") == "inc");
    CHECK(w.device.vars["inc"]["g_flag"] == 1.0);
    w.load("cand", "honest");
    CHECK(w.call(fake_verify("cand")).at("pass") == true);   // no stale blame on the next candidate
  }
  SECTION("an honest kernel with module variables it never changes passes") {
    w.device.initial["tables"] = {{"k_table", 3.0}};
    w.device.kernels["tables"] = honest;
    w.load("cand", "tables");
    CHECK(w.call(fake_verify("cand")).at("pass") == true);
    CHECK(w.call(fake_bench({"cand"}, 50)).at("ok") == true);
  }
}

TEST_CASE("replay_check fields are read strictly", "[harness-core]") {
  World w;
  w.load("a", "honest");
  w.load("b", "honest");
  auto kind_of = [&](const json& replay) {
    json rq = fake_bench({"a", "b"}, 10);
    rq["replay_check"] = replay;
    json r = w.call(rq);
    return r.value("kind", std::string("ok")) + ": " + r.value("error", std::string());
  };
  const json tol = fake_tolerances();
  CHECK(contains(kind_of({{"tolerances", tol}, {"check_slots", {"c"}}}), "bad_request: field 'replay_check': checked slot 'c'"));
  CHECK(contains(kind_of({{"tolerances", tol}, {"check_slots", json::array()}}), "check_slots"));
  CHECK(contains(kind_of({{"tolerances", tol}, {"check_slots", {1}}}), "check_slots"));
  CHECK(contains(kind_of({{"tolerances", tol}, {"verified_rotations", 0}}), "verified_rotations"));
  CHECK(contains(kind_of({{"tolerances", tol}, {"verified_rotations", 65}}), "verified_rotations"));
  CHECK(contains(kind_of({{"check_slots", {"a"}}}), "tolerances"));
  CHECK(contains(kind_of(json::array()), "replay_check"));
  json rq = fake_bench({"a", "b"}, 10);
  rq["deterministic"] = "yes";
  CHECK(w.call(rq).at("kind") == "bad_request");
  // Default: every slot, in the bench's order.
  rq = fake_bench({"b", "a"}, 10);
  rq["replay_check"]["check_slots"] = {"a", "b", "a"};
  json r = w.call(rq);
  REQUIRE(r.at("ok") == true);
  CHECK(r.at("replay_check").at("check_slots") == json::array({"b", "a"}));
}

TEST_CASE("exercise: the candidate once per distribution on a verify's inputs, and nothing else", "[harness-core]") {
  World w;
  std::vector<std::vector<uint32_t>> seen;
  w.device.kernels["recording"] = [&seen](FakeDevice& d, FakeProblem& p, const Launch& l) {
    for (double y : p.at(l.rotation).y) CHECK(std::isnan(y));   // poisoned before the launch
    seen.push_back(p.at(l.rotation).x);
    honest(d, p, l);
  };
  w.load("cand", "recording");
  json rq = fake_verify("cand");
  rq["cmd"] = "exercise";
  rq.erase("tolerances");
  json r = w.call(rq);
  INFO(r.dump());
  REQUIRE(r.at("ok") == true);
  CHECK(r.at("distributions") == 2);
  CHECK(r.at("workload") == "w");
  CHECK(w.device.launches["cand"] == 2);
  CHECK(w.problem.reference_runs == 0);   // no reference: under the sanitizer it is the candidate alone
  REQUIRE(seen.size() == 2);
  CHECK(seen[0] != seen[1]);

  // The inputs are the ones a verify with the same seed draws (its first runs see them).
  std::vector<std::vector<uint32_t>> verified;
  w.device.kernels["recording_verify"] = [&verified](FakeDevice& d, FakeProblem& p, const Launch& l) {
    if (l.number % 2 == 0) verified.push_back(p.at(l.rotation).x);
    honest(d, p, l);
  };
  w.load("cand", "recording_verify");
  REQUIRE(w.call(fake_verify("cand")).at("pass") == true);
  CHECK(verified == seen);

  SECTION("a module that keeps state is caught after it, as after verify") {
    w.device.initial["counter"] = {{"g_calls", 0.0}};
    w.device.kernels["counter"] = [](FakeDevice& d, FakeProblem& p, const Launch& l) {
      d.vars[l.slot]["g_calls"] += 1;
      honest(d, p, l);
    };
    w.load("cand", "counter");
    json s = w.call(rq);
    REQUIRE(s.at("ok") == false);
    CHECK(s.at("rule") == "state");
    CHECK(contains(s.at("error"), "after exercise"));
  }
  SECTION("\"distributions\": N runs the first N only; a negative count is a bad request") {
    w.load("cand", "recording");
    seen.clear();
    json one = rq;
    one["distributions"] = 1;
    json s = w.call(one);
    REQUIRE(s.at("ok") == true);
    CHECK(s.at("distributions") == 1);
    REQUIRE(seen.size() == 1);
    CHECK(seen[0] == verified[0]);   // the first distribution's inputs, as before
    one["distributions"] = -1;
    CHECK(w.call(one).at("kind") == "bad_request");
  }
  SECTION("an unloaded slot or a bad workload is a bad request") {
    json bad = rq;
    bad["slot"] = "nope";
    CHECK(w.call(bad).at("kind") == "bad_request");
    bad = rq;
    bad.erase("workload");
    CHECK(w.call(bad).at("kind") == "bad_request");
  }
}

TEST_CASE("launch: the slot bound to the workload, its launch path, nothing run", "[harness-core]") {
  World w;
  w.load("cand", "honest");
  json rq = fake_verify("cand");
  rq["cmd"] = "launch";
  rq.erase("tolerances");
  rq.erase("seed");
  json r = w.call(rq);
  INFO(r.dump());
  REQUIRE(r.at("ok") == true);
  CHECK(r.at("workload") == "w");
  CHECK(r.contains("launch"));                  // the fake device, as the CPU's, has one way to run: null
  CHECK(r.at("launch").is_null());
  CHECK(w.device.launches["cand"] == 0);        // bound, never launched
  CHECK(w.problem.reference_runs == 0);
  // An unloaded slot is a bad request, as for exercise.
  rq["slot"] = "nobody";
  CHECK(w.call(rq).at("kind") == "bad_request");
}

TEST_CASE("launch reports the code path and, beside it, how many waves each stage takes", "[harness-core]") {
  World w;
  w.load("cand", "honest");
  w.device.signature = {{"variant", 0}, {"stages", json::array({{{"block", {384, 1, 1}}, {"cluster", 4}}})}};
  w.device.occupancy = {{"sm_count", 132},
                        {"stages", json::array({{{"blocks", 128}, {"resident_blocks", 64}, {"waves", 2}}})}};
  const json r = w.call({{"cmd", "launch"}, {"slot", "cand"}, {"workload", {{"name", "w"}, {"params", {{"n", 64}}}}}});
  INFO(r.dump());
  REQUIRE(r.at("ok") == true);
  CHECK(r.at("launch") == w.device.signature);   // the sanitizer's key: the occupancy stays out of it
  CHECK(r.at("occupancy").at("stages").at(0).at("waves") == 2);
}
