// compute-sanitizer's reports, as seen on the H200 (CUDA 13.0), parsed.
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
