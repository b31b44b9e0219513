// The bench request's timing pad (PROTOCOL.md "pad"): a planted delay inside
// the timed region of one slot, the known speedup `autoresearch calibrate`
// measures the keep rule's power with.
#include <algorithm>

#include "harness_fixture.h"

using namespace ar::test;

namespace {

// The fastest sample of a slot. The pad is a busy wait on the wall clock and a
// loaded machine only ever adds time, so the fastest samples are the ones no
// other process interrupted. Medians are not: CI runs tests in parallel, and a
// padded sample, twice as long, is interrupted more often than an unpadded one
// (a CI run saw the padded median 1.7 pads above the unpadded one).
double fastest_of(const json& r, const char* slot) {
  auto v = r.at("samples").at(slot).get<std::vector<double>>();
  REQUIRE(!v.empty());
  return *std::min_element(v.begin(), v.end());
}

}  // namespace

TEST_CASE("a timing pad slows its slot by about the pad, and only that slot", "[harness]") {
  // The same kernel in both slots: without the pad they time alike.
  auto h = start({{"a", "default"}, {"b", "default"}});
  json rq = bench_request({"a", "b"}, workload("sq192"));
  rq["min_seconds"] = 0.0;
  const json rq_plain = rq;
  json plain = reply(*h, rq_plain);
  INFO(plain.dump().substr(0, 1500));
  REQUIRE(plain.at("ok") == true);
  CHECK_FALSE(plain.contains("pad"));
  const double kernel_us = fastest_of(plain, "b");

  // A pad as long as the kernel: the padded slot takes about twice as long.
  const double pad_us = std::max(kernel_us, 500.0);
  rq["pad"] = {{"slot", "a"}, {"us", pad_us}};
  rq["replay_check"] = {{"slot", "a"}, {"tolerances", tolerances()}};
  json padded = reply(*h, rq);
  INFO(padded.dump().substr(0, 1500));
  REQUIRE(padded.at("ok") == true);
  CHECK(padded.at("pad") == json{{"slot", "a"}, {"us", pad_us}});
  const double a_us = fastest_of(padded, "a"), b_us = fastest_of(padded, "b");
  INFO("kernel " << kernel_us << " us, pad " << pad_us << " us: a " << a_us << " us, b " << b_us << " us");
  CHECK(a_us >= b_us + 0.75 * pad_us);   // the pad lies inside the timed region
  CHECK(a_us / b_us >= 1.5);
  CHECK(a_us - b_us <= 1.5 * pad_us);    // and is not counted twice
  // The other slot is untouched. Its baseline is timed before and after the
  // padded call, since a kernel's time drifts between calls on a loaded
  // machine; a pad leaking into slot b would double it.
  const double kernel_after_us = fastest_of(reply(*h, rq_plain), "b");
  INFO("unpadded b after: " << kernel_after_us << " us");
  CHECK(b_us <= 1.5 * std::max(kernel_us, kernel_after_us));
  // Timing only: the padded slot's timed replay still computes the right answer.
  CHECK(padded.at("replay_check").at("pass") == true);

  // Verification never pads: it passes and takes about as long as before.
  json v = reply(*h, verify_request("a", workload("sq192")));
  CHECK(v.at("pass") == true);
}

TEST_CASE("a malformed pad is a bad_request naming the field", "[harness]") {
  auto h = start({{"a", "default"}, {"b", "default"}});
  auto error_of = [&](const json& pad) {
    json rq = bench_request({"a", "b"}, workload("odd_17x5x33"));
    rq["pad"] = pad;
    json r = reply(*h, rq);
    INFO(r.dump());
    CHECK(r.at("ok") == false);
    CHECK(r.at("kind") == "bad_request");
    return r.value("error", std::string());
  };
  CHECK(error_of({{"slot", "c"}, {"us", 5}}).find("pad.slot") != std::string::npos);
  CHECK(error_of({{"slot", "a"}, {"us", -1}}).find("pad.us") != std::string::npos);
  CHECK(error_of({{"slot", "a"}}).find("pad.us") != std::string::npos);
  CHECK(error_of({{"slot", "a"}, {"us", 2e6}}).find("pad.us") != std::string::npos);
  CHECK(error_of(json::array()).find("pad") != std::string::npos);
  CHECK(error_of({{"us", 5}}).find("slot") != std::string::npos);
}
