// The CPU backend's structural guards (src/harness/cpu/call_guard.h), each met
// by at least two different planted cheats: whatever the kernel's source says,
// state it keeps across calls and threads or processes it runs are reported as
// a "guard" error naming the rule; honest kernels, scratch memory included, are
// never flagged.
#include <signal.h>

#include <algorithm>

#include "harness_fixture.h"

using namespace ar::test;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string error_of(const json& r) { return r.value("error", ""); }

// A verify that must end in a guard error with `rule`; returns the reply.
json expect_guard(HarnessProcess& h, const std::string& slot, const std::string& rule, const json& w) {
  json r = reply(h, verify_request(slot, w));
  INFO(slot << ": " << r.dump().substr(0, 1500));
  CHECK(r.at("ok") == false);
  CHECK(r.value("kind", "") == "guard");
  CHECK(r.value("rule", "") == rule);
  CHECK(r.value("slot", "") == slot);
  return r;
}

json expect_state(const std::string& cheat, const json& w = workload("odd_17x5x33")) {
  auto h = start({{"cand", cheat}});
  json r = expect_guard(*h, "cand", "state", w);
  CHECK(contains(error_of(r), "keeps state across calls"));
  // Not fatal: the state was the kernel's own; the harness serves on.
  auto h2 = reply(*h, {{"cmd", "hello"}});
  CHECK(h2.at("ok") == true);
  return r;
}

}  // namespace

TEST_CASE("state in the kernel's writable data is caught on the call that writes it, whatever its spelling",
          "[harness][guard]") {
  // Declared variables: a global, statics behind a std::map, a counter, a flag,
  // a function-local static's guard variable.
  for (const char* cheat : {"global_counter", "pointer_cache", "pointer_cache_late", "alternating_order",
                            "first_call_flag", "local_static_table"}) {
    INFO(cheat);
    json r = expect_state(cheat);
    CHECK(contains(error_of(r), "writable data changed"));
  }
  // An exported variable is named in the reason.
  CHECK(contains(error_of(expect_state("global_counter")), "'g_calls'"));
  // No variable at all: words the toolchain puts in the object (__dso_handle in
  // .data) and the unused tail of the last .bss page.
  for (const char* cheat : {"dso_handle_counter", "bss_tail_counter"}) {
    INFO(cheat);
    CHECK(contains(error_of(expect_state(cheat)), "writable data changed"));
  }
}

TEST_CASE("state outside the kernel's memory: the floating-point mode, the params struct, thread-local storage",
          "[harness][guard]") {
  SECTION("the floating-point control register, restored before the harness computes on") {
    auto h = start({{"cand", "fenv_counter"}, {"inc", "default"}});
    json r = expect_guard(*h, "cand", "state", workload("odd_17x5x33"));
    CHECK(contains(error_of(r), "floating-point environment"));
    // The harness's own arithmetic is back to round-to-nearest: the honest
    // kernel verifies bitwise-stable and within tolerance on every distribution.
    json ok = reply(*h, verify_request("inc", workload("odd_232x152x184")));
    INFO(ok.dump().substr(0, 1500));
    CHECK(ok.at("pass") == true);
  }
  SECTION("a counter in the params struct") {
    CHECK(contains(error_of(expect_state("params_write")), "params struct"));
  }
  SECTION("thread-local storage") {
    CHECK(contains(error_of(expect_state("tls_counter")), "thread-local storage"));
  }
}

TEST_CASE("errno cannot carry a count from one call to the next", "[harness][guard]") {
  // errno_counter writes a wrong element from its third call on if errno
  // survives; the harness zeroes it before every call, so it stays honest.
  auto h = start({{"inc", "default"}, {"cand", "errno_counter"}});
  json v = reply(*h, verify_request("cand", workload("sq192")));
  INFO(v.dump().substr(0, 1500));
  CHECK(v.at("pass") == true);
  json rq = bench_request({"inc", "cand"}, workload("sq192"));
  rq["replay_check"] = {{"slot", "cand"}, {"tolerances", tolerances()}};
  json b = reply(*h, rq);
  INFO(b.dump().substr(0, 1500));
  REQUIRE(b.at("ok") == true);
  CHECK(b.at("replay_check").at("pass") == true);
}

TEST_CASE("a timed sample is guarded like a checked call", "[harness][guard]") {
  // Straight to bench, no verify first: the warm-up's first timed call trips it.
  auto h = start({{"inc", "default"}, {"cand", "global_counter"}});
  json r = reply(*h, bench_request({"inc", "cand"}, workload("sq192")));
  INFO(r.dump().substr(0, 1500));
  CHECK(r.at("ok") == false);
  CHECK(r.value("kind", "") == "guard");
  CHECK(r.value("rule", "") == "state");
  CHECK(r.value("slot", "") == "cand");
}

TEST_CASE("host threads and processes are caught, and the harness exits after them", "[harness][guard]") {
  struct Case {
    const char* cheat;
    const char* says;
  };
  for (const Case c : {Case{"thread_join", "CPU time"}, Case{"async_rows", "CPU time"},
                       Case{"thread_left", "still run"}, Case{"fork_rows", "child process"},
                       Case{"openmp_rows", "host threads"}}) {
    INFO(c.cheat);
    auto h = start({{"cand", c.cheat}});
    json r = expect_guard(*h, "cand", "host-thread", workload("sq192"));
    CHECK(contains(error_of(r), "runs host threads"));
    CHECK(contains(error_of(r), c.says));
    // What the kernel started may still run: the process is not trusted again.
    CHECK(r.value("exits", false) == true);
    CHECK(h->wait_exit() == 3);
  }
}

TEST_CASE("honest kernels with heap or stack scratch are never flagged", "[harness][guard]") {
  auto h = start({{"heap", "honest_heap_scratch"}, {"stack", "honest_stack_scratch"}, {"inc", "default"}});
  for (const char* w : {"sq192", "odd_17x5x33", "padded_37x29x41", "k1_64x48x1", "tiny_1x1x1"}) {
    for (const char* slot : {"heap", "stack"}) {
      json r = reply(*h, verify_request(slot, workload(w)));
      INFO(slot << " on " << w << ": " << r.dump().substr(0, 1500));
      CHECK(r.at("ok") == true);
      CHECK(r.at("pass") == true);
    }
  }
  json rq = bench_request({"inc", "heap", "stack"}, workload("odd_232x152x184"));
  rq["replay_check"] = {{"slot", "heap"}, {"tolerances", tolerances()}};
  json b = reply(*h, rq);
  INFO(b.dump().substr(0, 1500));
  REQUIRE(b.at("ok") == true);
  CHECK(b.at("replay_check").at("pass") == true);
}

TEST_CASE("the planted outliers catch a kernel tuned to ordinary magnitudes", "[harness][guard]") {
  auto h = start({{"cand", "clamps_inputs"}});
  json r = reply(*h, verify_request("cand", workload("sq192")));
  INFO(r.dump().substr(0, 2000));
  REQUIRE(r.at("ok") == true);
  CHECK(r.at("pass") == false);
  CHECK(contains(r.value("reason", ""), "(distribution outliers)"));
  // Every distribution before it passed: only the outliers tell.
  const json& d = r.at("distributions");
  REQUIRE(d.size() >= 2);
  for (size_t i = 0; i + 1 < d.size(); ++i) CHECK(d[i].at("pass") == true);
  CHECK(d.back().at("name") == "outliers");
}
