// compute-sanitizer's reports, as seen on the H200 (CUDA 13.0), parsed.
#include <tuple>
#include <vector>

#include "autoresearch/core/manifest.h"
#include "autoresearch/util/expression.h"
#include "catch.h"
#include "loop/steps.h"

using ar::sanitizer_finding;

TEST_CASE("a clean memcheck or racecheck report is no finding") {
  CHECK_FALSE(sanitizer_finding("========= COMPUTE-SANITIZER\n{\"ok\":true}\n========= ERROR SUMMARY: 0 errors\n", 0));
  CHECK_FALSE(sanitizer_finding(
      "========= COMPUTE-SANITIZER\n========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n", 0));
  CHECK_FALSE(sanitizer_finding("{\"ok\":true}\n", 0));   // no summary at all, exit 0
}

TEST_CASE("errors are found, counted, and the excerpt skips the banner") {
  std::string memcheck =
      "========= COMPUTE-SANITIZER\n"
      "========= Invalid __global__ read of size 16 bytes\n"
      "=========     at ar_stage0+0x1a30\n"
      "========= ERROR SUMMARY: 3 errors\n";
  auto f = sanitizer_finding(memcheck, 99);
  REQUIRE(f);
  CHECK(f->find("3 error(s)") != std::string::npos);
  CHECK(f->find("Invalid __global__ read") != std::string::npos);
  CHECK(f->find("COMPUTE-SANITIZER") == std::string::npos);

  auto race = sanitizer_finding(
      "========= COMPUTE-SANITIZER\n========= Error: Race reported between Write access at ar_stage0\n"
      "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n", 0);
  REQUIRE(race);
  CHECK(race->find("Race reported") != std::string::npos);
}

TEST_CASE("exit status 99 (--error-exitcode) alone is a finding") {
  CHECK(sanitizer_finding("========= COMPUTE-SANITIZER\n", 99));
}

// sanitizer_workloads: which workloads the tools exercise, from the harness's "launch" replies.
namespace {
ar::Manifest three_sizes() {
  ar::Manifest m;
  std::string err;
  m.bytes = ar::Expression::parse("n * 4", &err);
  for (auto [name, n] : {std::pair{"big", 4096}, std::pair{"small", 16}, std::pair{"mid", 256}}) {
    ar::Workload w;
    w.name = name;
    w.params = {{"n", n}};
    m.workloads.push_back(w);
  }
  return m;
}
}  // namespace

TEST_CASE("without launch paths only the smallest workload is sanitized") {
  ar::Manifest m = three_sizes();
  auto picked = ar::sanitizer_workloads(m, {});
  REQUIRE(picked.size() >= 1);
  CHECK(picked[0]->name == "small");
  CHECK(picked.size() == 1);
}

TEST_CASE("each launch path adds its smallest workload, smallest first") {
  ar::Manifest m = three_sizes();
  nlohmann::json v0 = {{"variant", 0}, {"stages", {{{"block", {384, 1, 1}}, {"shared_bytes", 1000}}}}};
  nlohmann::json v1 = {{"variant", 1}, {"stages", {{{"block", {384, 1, 1}}, {"shared_bytes", 2000}}}}};
  std::vector<nlohmann::json> replies = {{{"ok", true}, {"workload", "small"}, {"launch", v0}},
                                         {{"ok", true}, {"workload", "big"}, {"launch", v1}},
                                         {{"ok", true}, {"workload", "mid"}, {"launch", v1}}};
  auto picked = ar::sanitizer_workloads(m, replies);
  REQUIRE(picked.size() == 2);
  CHECK(picked[0]->name == "small");
  CHECK(picked[1]->name == "mid");   // the smallest on variant 1, not the biggest
  // One path for all: the smallest alone.
  for (auto& r : replies) r["launch"] = v0;
  CHECK(ar::sanitizer_workloads(m, replies).size() == 1);
}

TEST_CASE("each value of a 0/1 flag is sanitized on its smallest workload, even on one launch path") {
  // fp8 switches the data format inside one launch configuration; `n` is a size (not a flag), `mode` is
  // 0 everywhere (nothing to cover), `odd` takes a third value (not a flag).
  ar::Manifest m;
  std::string err;
  m.bytes = ar::Expression::parse("n * 4", &err);
  const std::vector<std::tuple<const char*, int, int, int, int>> decl = {
      {"bf16_small", 16, 0, 0, 1}, {"bf16_big", 4096, 0, 0, 2}, {"fp8_big", 8192, 1, 0, 3}, {"fp8_mid", 512, 1, 0, 1}};
  for (auto [name, n, fp8, mode, odd] : decl) {
    ar::Workload w;
    w.name = name;
    w.params = {{"n", n}, {"fp8", fp8}, {"mode", mode}, {"odd", odd}};
    m.workloads.push_back(w);
  }
  nlohmann::json one = {{"variant", 0}, {"stages", {{{"block", {256, 1, 1}}, {"shared_bytes", 100}}}}};
  std::vector<nlohmann::json> replies;
  for (const auto& w : m.workloads) replies.push_back({{"ok", true}, {"workload", w.name}, {"launch", one}});
  auto picked = ar::sanitizer_workloads(m, replies);
  REQUIRE(picked.size() == 2);
  CHECK(picked[0]->name == "bf16_small");
  CHECK(picked[1]->name == "fp8_mid");   // the smallest FP8 one, not the biggest
  // Without launch replies too (an old harness): flags are read from the manifest.
  picked = ar::sanitizer_workloads(m, {});
  REQUIRE(picked.size() == 2);
  CHECK(picked[1]->name == "fp8_mid");
  // A flag the smallest workload already sets to 1 adds its smallest 0 instead.
  m.workloads[0].params["fp8"] = 1;
  picked = ar::sanitizer_workloads(m, replies);
  REQUIRE(picked.size() == 2);
  CHECK(picked[1]->name == "bf16_big");
}

TEST_CASE("the smallest workload runs every input distribution, each other launch path's as many as asked") {
  ar::Manifest m = three_sizes();
  std::vector<const ar::Workload*> picked = {m.find_workload("small"), m.find_workload("mid")};
  // Every distribution everywhere (memcheck: its findings depend on the data).
  std::istringstream all(ar::sanitizer_script("/x/kernel.cubin", picked, 42, 0));
  for (std::string l; std::getline(all, l);) CHECK_FALSE(nlohmann::json::parse(l).contains("distributions"));
  // The first only beyond the smallest (racecheck).
  std::istringstream lines(ar::sanitizer_script("/x/kernel.cubin", picked, 42, 1));
  std::vector<nlohmann::json> rq;
  for (std::string l; std::getline(lines, l);) rq.push_back(nlohmann::json::parse(l));
  REQUIRE(rq.size() == 4);
  CHECK(rq[0]["cmd"] == "load");
  CHECK(rq[0]["artifact"] == "/x/kernel.cubin");
  CHECK(rq[1]["cmd"] == "exercise");
  CHECK(rq[1]["workload"]["name"] == "small");
  CHECK_FALSE(rq[1].contains("distributions"));
  CHECK(rq[1]["seed"] == 42);
  CHECK(rq[2]["workload"]["name"] == "mid");
  CHECK(rq[2]["distributions"] == 1);
  CHECK(rq[3]["cmd"] == "quit");
}

TEST_CASE("instrumentation is restricted to the candidate's entry points in the tool's own spelling") {
  CHECK(ar::sanitizer_kernel_filter("  --kernel-name arg  Filter the kernels\n  --kernel-name-exclude arg") ==
        std::vector<std::string>{"--kernel-name", "kns=ar_"});
  CHECK(ar::sanitizer_kernel_filter("  --filter arg   Filter the kernels (kns=...)") ==
        std::vector<std::string>{"--filter", "kns=ar_"});
  CHECK(ar::sanitizer_kernel_filter("Usage: compute-sanitizer [options] [your-program]").empty());
  CHECK(ar::sanitizer_kernel_filter("").empty());
}
