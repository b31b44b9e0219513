// The ncu output the profile reads (`--csv --page raw`): a header, a units
// row, one row per profiled launch. The lines are the shape ncu 2025 printed
// on the H200 (kernels/sparse_mla/results), cut to a few metrics.
#include "autoresearch/loop/profile.h"
#include "catch.h"

using namespace ar;

TEST_CASE("ncu's raw CSV becomes per-kernel metrics and a readable summary") {
  std::string csv =
      "==PROF== Connected to process 1234 (/tmp/harness)\n"
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
      "\"Grid Size\",\"Device\",\"CC\",\"gpu__time_duration.sum\",\"sm__warps_active.avg.pct_of_peak_sustained_active\","
      "\"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active\","
      "\"sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active\","
      "\"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio\","
      "\"smsp__average_warps_issue_stalled_wait_per_issue_active.ratio\"\n"
      "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"nsecond\",\"%\",\"%\",\"%\",\"ratio\",\"ratio\"\n"
      "\"0\",\"1234\",\"harness\",\"h\",\"ar_stage0\",\"1\",\"7\",\"(256, 1, 1)\",\"(128, 1, 1)\",\"0\",\"9.0\","
      "\"15,552\",\"12.3\",\"6.7\",\"0\",\"2.97\",\"1.98\"\n"
      "\"1\",\"1234\",\"harness\",\"h\",\"ar_stage0\",\"1\",\"7\",\"(256, 1, 1)\",\"(128, 1, 1)\",\"0\",\"9.0\","
      "\"15,000\",\"12.0\",\"6.5\",\"0\",\"2.9\",\"1.9\"\n";
  auto kernels = parse_ncu_raw_csv(csv);
  REQUIRE(kernels.size() == 1);   // the second launch of the same stage adds nothing
  CHECK(kernels[0]["name"] == "ar_stage0");
  CHECK(kernels[0]["metrics"]["gpu__time_duration.sum"].get<double>() == Approx(15.552));   // ns -> µs
  std::string text = describe_profile(kernels, "b1_32k");
  CHECK(text.find("achieved occupancy: 12.3%") != std::string::npos);
  CHECK(text.find("hmma_cycles_active.avg.pct_of_peak_sustained_active: 6.7%") != std::string::npos);
  CHECK(text.find("gmma") == std::string::npos);   // a pipe that did nothing is not listed
  CHECK(text.find("long_scoreboard 2.97, wait 1.98") != std::string::npos);
  CHECK(parse_ncu_raw_csv("==PROF== nothing profiled\n").empty());
  // Without a units row (seen on the H200), a duration is ncu's nanoseconds.
  std::string no_units = csv.substr(0, csv.find("\"\",\"\"")) + csv.substr(csv.find("\"0\",\"1234\""));
  auto k2 = parse_ncu_raw_csv(no_units);
  REQUIRE(k2.size() == 1);
  CHECK(k2[0]["metrics"]["gpu__time_duration.sum"].get<double>() == Approx(15.552));
}

TEST_CASE("the harness's occupancy says how many waves each profiled stage takes") {
  // The harness's protocol output as the profile reads it: replies, one a line, the launch reply among them.
  const std::string out =
      "{\"ok\":true,\"device\":{\"name\":\"x\"}}\n"
      "{\"ok\":true,\"workload\":\"b16_32k\",\"launch\":{\"variant\":1,\"stages\":[]},"
      "\"occupancy\":{\"sm_count\":132,\"stages\":[{\"blocks\":128,\"resident_blocks\":120,\"waves\":2,"
      "\"resident_clusters\":30},{\"blocks\":2048,\"resident_blocks\":2112,\"waves\":1}]}}\n"
      "{\"ok\":true,\"pass\":true}\n";
  const auto occupancy = launch_occupancy_of(out);
  REQUIRE(occupancy.is_object());
  const nlohmann::json kernels = nlohmann::json::array({{{"name", "ar_k1_stage0"}, {"metrics", nlohmann::json::object()}},
                                                       {{"name", "ar_k1_stage1"}, {"metrics", nlohmann::json::object()}}});
  const std::string text = describe_profile(kernels, "b16_32k", occupancy);
  CHECK(text.find("resident at once: 120 blocks (30 clusters of 4) of its 128: 2 waves") != std::string::npos);
  CHECK(text.find("resident at once: 2112 blocks of its 2048: 1 wave\n") != std::string::npos);
  // An older harness (no occupancy) or a garbled line: the summary as before.
  CHECK(launch_occupancy_of("{\"ok\":true,\"launch\":null}\nnot json\n").is_null());
  CHECK(describe_profile(kernels, "b16_32k").find("resident") == std::string::npos);
}
