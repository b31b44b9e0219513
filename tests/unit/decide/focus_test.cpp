#include "autoresearch/decide/focus.h"

#include <string>
#include <vector>

#include "autoresearch/decide/keep_rule.h"
#include "autoresearch/measure/sample_stats.h"
#include "catch.h"

namespace ar {
namespace {

const std::vector<std::string> kTimed = {"b1_32k", "b128_32k", "h16_b128_32k", "fp8_b128_32k", "fp8_b64_32k"};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A workload measured at `ratio` (incumbent / candidate) with a tight, seeded spread.
PairedSamples at(const std::string& name, double ratio) {
  PairedSamples p{name, {}, {}};
  for (int i = 0; i < 100; ++i) {
    const double cand = 100 + (i % 7) * 0.01;
    p.candidate_us.push_back(cand);
    p.incumbent_us.push_back(cand * ratio * (1 + ((i * 37) % 11 - 5) * 1e-4));
  }
  return p;
}

}  // namespace

TEST_CASE("focus patterns: exact names and globs", "[decide]") {
  CHECK(in_focus({"fp8_*"}, "fp8_b128_32k"));
  CHECK(in_focus({"b1_32k"}, "b1_32k"));
  CHECK_FALSE(in_focus({"b1_32k"}, "b1_32k_x"));
  CHECK_FALSE(in_focus({}, "b1_32k"));
  CHECK(focus_names({"fp8_*", "h16_*"}, kTimed) ==
        std::vector<std::string>{"h16_b128_32k", "fp8_b128_32k", "fp8_b64_32k"});   // in the workloads' order
  CHECK(focus_text({"fp8_*"}, kTimed) == "fp8_b128_32k, fp8_b64_32k (2 of 5 timed workloads)");
}

TEST_CASE("focus: a pattern that matches no timed workload is refused, naming the timed ones", "[decide]") {
  CHECK(focus_problem({"fp8_*", "b128_32k"}, kTimed).empty());
  CHECK(focus_problem({}, kTimed).empty());
  const std::string why = focus_problem({"fp8_*", "fp9_*"}, kTimed);
  CHECK(contains(why, "--focus fp9_*: matches none of the timed workloads"));
  CHECK(contains(why, "b1_32k, b128_32k"));
  CHECK(contains(focus_problem({""}, kTimed), "empty pattern"));
}

// Why the option exists: a 10% gain on one class of 5 workloads is 1.9% of the geomean over all,
// 10% over the class; a regression elsewhere still vetoes it.
TEST_CASE("a focus judges the gain on its workloads, and every workload still vetoes by regressing",
          "[decide]") {
  KeepRuleConfig rule;
  rule.min_gain = 0.05;
  std::vector<PairedSamples> m;
  for (const auto& w : kTimed) m.push_back(at(w, w.rfind("fp8_", 0) == 0 ? 1.10 : 1.0));
  const std::vector<std::string> fp8 = focus_names({"fp8_*"}, kTimed);

  const Verdict over_all = judge_measurement(compare(m), 0.001, rule);
  CHECK_FALSE(over_all.pass);
  CHECK(contains(over_all.reason, "clearly below the min-gain"));
  const Verdict focused = judge_measurement(compare(m, fp8), 0.001, rule);
  CHECK(focused.pass);

  m[1] = at("b128_32k", 0.95);   // 5% slower outside the focus
  const Verdict vetoed = judge_measurement(compare(m, fp8), 0.001, rule);
  CHECK_FALSE(vetoed.pass);
  CHECK(contains(vetoed.reason, "regresses b128_32k"));
}

}  // namespace ar
