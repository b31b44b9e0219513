#include "autoresearch/log/bench_table.h"

#include "catch.h"

namespace {

// H200-like peaks, round numbers so the expected values are easy to check by hand.
ar::Roofline h200() { return {1000e12, 5000e9, "context/hardware/h200.json"}; }

ar::Summary summary(double median) {
  ar::Summary s;
  s.n = 30;
  s.min = median * 0.99;
  s.q1 = median * 0.995;
  s.median = median;
  s.q3 = median * 1.005;
  s.max = median * 1.02;
  s.mean = median;
  return s;
}

}  // namespace

TEST_CASE("roofline position of a memory-bound workload") {
  // 5 GB in 2 ms at 5 TB/s peak: floor 1 ms, 50% of the roofline.
  auto p = ar::roofline_position(2000, 1e9, 5e9, h200());
  CHECK(p.bound == "memory");
  CHECK(p.floor_us == Approx(1000));
  CHECK(p.pct_of_roofline == Approx(50));
  CHECK(p.gbps == Approx(2500));
  CHECK(p.tflops == Approx(0.5));
}

TEST_CASE("roofline position of a compute-bound workload") {
  // 1 PFLOP... 1e12 FLOP at 1e15 FLOP/s: floor 1 ms; 1.25 ms measured is 80%.
  auto p = ar::roofline_position(1250, 1e12, 1e9, h200());
  CHECK(p.bound == "compute");
  CHECK(p.floor_us == Approx(1000));
  CHECK(p.pct_of_roofline == Approx(80));
  CHECK(p.tflops == Approx(800));
}

TEST_CASE("roofline position without peaks is unknown, not a number") {
  ar::Roofline none;
  auto p = ar::roofline_position(100, 1e9, 1e9, none);
  CHECK(p.bound == "unknown");
  CHECK(p.pct_of_roofline == 0);
  CHECK(p.tflops == Approx(10));  // throughput needs no peaks

  ar::Roofline half{0, 5000e9, ""};
  auto q = ar::roofline_position(100, 1e9, 5e8, half);
  CHECK(q.bound == "unknown");
  CHECK(q.floor_us == Approx(100));  // still a valid floor for the fault check

  auto z = ar::roofline_position(0, 1e9, 1e9, h200());
  CHECK(z.bound == "unknown");
  CHECK(z.tflops == 0);
}

TEST_CASE("the bench table shows each workload with its roofline") {
  std::vector<ar::WorkloadRow> rows(2);
  rows[0].name = "b1_ctx128k";
  rows[0].time_us = summary(2000);
  rows[0].flops = 1e9;
  rows[0].bytes = 5e9;
  rows[0].sm_mhz = 1980;
  rows[1].name = "b64_ctx4k";
  rows[1].time_us = summary(40);  // no flops/bytes declared

  std::string table = ar::render_bench_table(rows, h200(), "sparse_mla on H200");
  CHECK(table.rfind("sparse_mla on H200\n", 0) == 0);
  CHECK(table.find("b1_ctx128k") != std::string::npos);
  CHECK(table.find("2000.0") != std::string::npos);
  CHECK(table.find("50.0% memory") != std::string::npos);
  CHECK(table.find("1.00%") != std::string::npos);  // IQR of row 0
  CHECK(table.find("1980") != std::string::npos);
  CHECK(table.find("context/hardware/h200.json") != std::string::npos);
  CHECK(table.find("ratio") == std::string::npos);  // not comparing

  SECTION("comparing adds the other median and the ratio with its CI") {
    rows[0].other_median_us = 2100;
    rows[0].ratio = 1.05;
    rows[0].ratio_ci_low = 1.04;
    rows[0].ratio_ci_high = 1.06;
    std::string cmp = ar::render_bench_table(rows, h200(), "");
    CHECK(cmp.find("2100.0") != std::string::npos);
    CHECK(cmp.find("1.050x (1.040-1.060)") != std::string::npos);
  }
  SECTION("a time under the floor is flagged") {
    rows[0].time_us = summary(500);
    std::string bad = ar::render_bench_table(rows, h200(), "");
    CHECK(bad.find("200.0% memory !") != std::string::npos);
    CHECK(bad.find("measurement fault") != std::string::npos);
  }
  SECTION("without peaks the footer says so") {
    std::string none = ar::render_bench_table(rows, ar::Roofline{}, "");
    CHECK(none.find("peaks unknown") != std::string::npos);
    CHECK(none.find("% memory") == std::string::npos);
  }
}

TEST_CASE("bench rows as JSON") {
  std::vector<ar::WorkloadRow> rows(1);
  rows[0].name = "w";
  rows[0].time_us = summary(2000);
  rows[0].flops = 1e9;
  rows[0].bytes = 5e9;
  rows[0].ratio = 1.1;
  rows[0].ratio_ci_low = 1.0;
  rows[0].ratio_ci_high = 1.2;
  auto j = ar::bench_rows_json(rows, h200());
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 1);
  CHECK(j[0]["name"] == "w");
  CHECK(j[0]["median_us"].get<double>() == Approx(2000));
  CHECK(j[0]["pct_of_roofline"].get<double>() == Approx(50));
  CHECK(j[0]["bound"] == "memory");
  CHECK(j[0]["ratio_ci"][1].get<double>() == Approx(1.2));
  CHECK_FALSE(j[0].contains("other_median_us"));
}
