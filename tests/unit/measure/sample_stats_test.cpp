#include "autoresearch/measure/sample_stats.h"

#include <cmath>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "catch.h"

namespace ar {
namespace {

PairedSamples pairs(const std::string& name, std::vector<double> inc, std::vector<double> cand) {
  return PairedSamples{name, std::move(inc), std::move(cand)};
}

std::string what_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("summarize: quartiles by linear interpolation, as numpy computes them", "[measure]") {
  // numpy.percentile([1..10], [25, 50, 75]) = [3.25, 5.5, 7.75]
  const Summary s = summarize({7, 3, 10, 1, 5, 9, 2, 8, 4, 6});
  CHECK(s.n == 10);
  CHECK(s.min == 1);
  CHECK(s.max == 10);
  CHECK(s.q1 == Approx(3.25));
  CHECK(s.median == Approx(5.5));
  CHECK(s.q3 == Approx(7.75));
  CHECK(s.mean == Approx(5.5));
  // n = 10: the 95% CI of the median is [x(2), x(9)] = [2, 9].
  CHECK(s.median_ci_rel == Approx((9.0 - 2.0) / 2 / 5.5));
}

TEST_CASE("summarize: odd count, one value, no values", "[measure]") {
  const Summary odd = summarize({5, 1, 3});
  CHECK(odd.median == 3);
  CHECK(odd.q1 == 2);
  CHECK(odd.q3 == 4);

  const Summary one = summarize({42});
  CHECK(one.n == 1);
  CHECK(one.min == 42);
  CHECK(one.q1 == 42);
  CHECK(one.median == 42);
  CHECK(one.max == 42);
  CHECK(one.median_ci_rel == 0);

  const Summary none = summarize({});
  CHECK(none.n == 0);
  CHECK(none.median == 0);
}

TEST_CASE("median CI ranks match the binomial tables", "[measure]") {
  // Textbook 95% ranks (1-based) x(2)..x(9) for n = 10, x(6)..x(15) for 20,
  // x(40)..x(61) for 100; below n = 6 no pair reaches 95%: the full range.
  CHECK(median_ci_ranks(10) == std::pair<size_t, size_t>{1, 8});
  CHECK(median_ci_ranks(20) == std::pair<size_t, size_t>{5, 14});
  CHECK(median_ci_ranks(30) == std::pair<size_t, size_t>{9, 20});
  CHECK(median_ci_ranks(100) == std::pair<size_t, size_t>{39, 60});
  CHECK(median_ci_ranks(200) == std::pair<size_t, size_t>{85, 114});
  CHECK(median_ci_ranks(5) == std::pair<size_t, size_t>{0, 4});
  CHECK(median_ci_ranks(3) == std::pair<size_t, size_t>{0, 2});
  CHECK(median_ci_ranks(1) == std::pair<size_t, size_t>{0, 0});
  // Past the exact range the normal approximation is within one rank of it
  // (exact: 469 and 2430).
  CHECK(std::abs(static_cast<long>(median_ci_ranks(1001).first) - 469) <= 1);
  CHECK(std::abs(static_cast<long>(median_ci_ranks(5000).first) - 2430) <= 1);
  CHECK(median_ci_ranks(5000).second == 4999 - median_ci_ranks(5000).first);
}

TEST_CASE("compare: identical samples give 1 and p = 0.5, not a division by zero", "[measure]") {
  const std::vector<double> same(20, 100.0);
  const Comparison c = compare({pairs("a", same, same)});
  CHECK(c.speedup == Approx(1));
  CHECK(c.se_log > 0);
  CHECK(c.p_value == Approx(0.5));
  CHECK(c.workloads.at(0).ratio_ci_low == Approx(1));
  CHECK(c.workloads.at(0).ratio_ci_high == Approx(1));
}

TEST_CASE("compare: the ratio is the median paired ratio, the CI its order statistics",
          "[measure]") {
  // Ten pairs whose ratios inc/cand are 1.01, 1.02, ..., 1.10 (shuffled).
  std::vector<double> inc, cand;
  for (int k : {3, 9, 1, 7, 5, 10, 2, 8, 4, 6}) {
    cand.push_back(100);
    inc.push_back(100 * (1 + k / 100.0));
  }
  const Comparison c = compare({pairs("a", inc, cand)});
  const WorkloadComparison& w = c.workloads.at(0);
  CHECK(w.workload == "a");
  CHECK(w.ratio == Approx(std::exp((std::log(1.05) + std::log(1.06)) / 2)));
  CHECK(w.ratio_ci_low == Approx(1.02));   // x(2)
  CHECK(w.ratio_ci_high == Approx(1.09));  // x(9)
  CHECK(w.se_log == Approx((std::log(1.09) - std::log(1.02)) / (2 * 1.959963984540054)));
  CHECK(w.incumbent.median == Approx(105.5));
  CHECK(w.candidate.median == Approx(100));
  CHECK(c.speedup == Approx(w.ratio));
  // z = ln(ratio) / se = 3.16; all ten ratios above 1 (the sign test's exact
  // one-sided p would be 0.001).
  CHECK(c.p_value == Approx(0.5 * std::erfc(std::log(w.ratio) / w.se_log / std::sqrt(2.0))));
  CHECK(c.p_value < 0.001);
}

TEST_CASE("compare: the speedup is the geometric mean over workloads", "[measure]") {
  const std::vector<double> base(10, 100.0), fast(10, 100 / 1.1), slow(10, 110.0);
  const Comparison c = compare({pairs("fast", base, fast), pairs("slow", base, slow)});
  REQUIRE(c.workloads.size() == 2);
  CHECK(c.workloads[0].ratio == Approx(1.1));
  CHECK(c.workloads[1].ratio == Approx(1 / 1.1));
  CHECK(c.speedup == Approx(1));
  // Independent workloads: variances add, the mean divides by W.
  const double se = std::sqrt(std::pow(c.workloads[0].se_log, 2) +
                              std::pow(c.workloads[1].se_log, 2)) / 2;
  CHECK(c.se_log == Approx(se));
  CHECK(c.ci_low == Approx(std::exp(-1.959963984540054 * se)));
  CHECK(c.ci_high == Approx(std::exp(1.959963984540054 * se)));
}

TEST_CASE("compare: rejects input it cannot judge, naming the workload", "[measure]") {
  const std::vector<double> ten(10, 1.0), nine(9, 1.0), two(2, 1.0);
  CHECK(what_of([&] { compare({pairs("b1_4k", ten, nine)}); }).find("b1_4k") != std::string::npos);
  CHECK(what_of([&] { compare({pairs("b1_4k", ten, nine)}); }).find("10 incumbent") !=
        std::string::npos);
  CHECK(what_of([&] { compare({pairs("tiny", two, two)}); }).find("tiny") != std::string::npos);
  CHECK(what_of([&] { compare({pairs("tiny", two, two)}); }).find("at least 3") !=
        std::string::npos);
  std::vector<double> bad = ten;
  bad[4] = -1;
  CHECK(what_of([&] { compare({pairs("neg", ten, bad)}); }).find("neg") != std::string::npos);
  bad[4] = std::nan("");
  REQUIRE_THROWS_AS(compare({pairs("nan", bad, ten)}), std::invalid_argument);
  REQUIRE_THROWS_AS(compare({}), std::invalid_argument);
}

TEST_CASE("aa_half_width is the 95% half-width of the A/A geomean", "[measure]") {
  Comparison aa;
  aa.se_log = 0.005;
  aa.speedup = 1.004;  // the offset itself is noise; it does not widen the bar
  CHECK(aa_half_width(aa) == Approx(std::exp(1.959963984540054 * 0.005) - 1));
  aa.se_log = 0;
  CHECK(aa_half_width(aa) == 0);
}

TEST_CASE("to_json carries every number", "[measure]") {
  const std::vector<double> a{1, 2, 3, 4, 5}, b{1, 2, 3, 4, 5};
  const Comparison c = compare({pairs("w", a, b)});
  const nlohmann::json j = to_json(c);
  CHECK(j.at("speedup").get<double>() == Approx(1));
  for (const char* key : {"ci_low", "ci_high", "se_log", "p_value"}) CHECK(j.contains(key));
  const nlohmann::json& w = j.at("workloads").at(0);
  CHECK(w.at("workload") == "w");
  CHECK(w.at("incumbent").at("n") == 5);
  CHECK(w.at("candidate").at("median").get<double>() == Approx(3));
  for (const char* key : {"min", "q1", "q3", "max", "mean", "median_ci_rel"}) {
    CHECK(w.at("incumbent").contains(key));
  }
}

// The keep rule's false-keep guarantee rests on p-values that are not
// optimistic: under A/A, p < 0.05 must happen about 5% of the time.
TEST_CASE("compare: A/A p-values are calibrated under lognormal noise", "[measure]") {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0, 0.02);
  const int trials = 4000;
  int below_05 = 0;
  for (int t = 0; t < trials; ++t) {
    PairedSamples m{"w", std::vector<double>(60), std::vector<double>(60)};
    for (int i = 0; i < 60; ++i) {
      m.incumbent_us[i] = 50 * std::exp(noise(rng));
      m.candidate_us[i] = 50 * std::exp(noise(rng));
    }
    below_05 += compare({m}).p_value < 0.05;
  }
  INFO("p < 0.05 in " << below_05 << " of " << trials);
  CHECK(below_05 > 0.03 * trials);
  CHECK(below_05 < 0.07 * trials);
}


// Paired samples whose incumbent is `ratio` times the candidate, with a little jitter (a seeded draw).
PairedSamples timed_at(const std::string& name, double ratio, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> jitter(0, 0.002);
  PairedSamples p{name, {}, {}};
  for (int i = 0; i < 200; ++i) {
    const double cand = 100 * (1 + jitter(rng));
    p.candidate_us.push_back(cand);
    p.incumbent_us.push_back(cand * ratio * (1 + jitter(rng)));
  }
  return p;
}

TEST_CASE("compare over judged workloads: the geomean is theirs, every workload is still compared",
          "[measure]") {
  const std::vector<PairedSamples> m = {timed_at("b128", 1.00, 1), timed_at("fp8_b128", 1.10, 2),
                                        timed_at("h16", 0.99, 3), timed_at("fp8_b64", 1.21, 4)};
  const Comparison all = compare(m);
  const Comparison fp8 = compare(m, {"fp8_b128", "fp8_b64"});
  CHECK(all.judged_on.empty());
  CHECK(fp8.judged_on == std::vector<std::string>{"fp8_b128", "fp8_b64"});
  REQUIRE(fp8.workloads.size() == 4);   // the regression check reads them all
  CHECK(fp8.workloads[2].workload == "h16");
  CHECK(fp8.speedup == Approx(std::sqrt(1.10 * 1.21)).epsilon(0.003));
  CHECK(all.speedup == Approx(std::pow(1.00 * 1.10 * 0.99 * 1.21, 0.25)).epsilon(0.003));
  // Two workloads' log-ratios average with a wider CI than four's.
  CHECK(fp8.se_log > all.se_log);
  CHECK(to_json(fp8).at("judged_on").size() == 2);
  CHECK_FALSE(to_json(all).contains("judged_on"));
}

TEST_CASE("compare over judged workloads none of which was measured: over all (a quick screen without them)",
          "[measure]") {
  const std::vector<PairedSamples> m = {timed_at("b1", 1.05, 5), timed_at("b16", 1.05, 6)};
  const Comparison c = compare(m, {"fp8_b128"});
  CHECK(c.judged_on.empty());
  CHECK(c.speedup == Approx(1.05).epsilon(0.003));
}

}  // namespace ar
