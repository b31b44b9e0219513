// ptxas -v's report of a CUDA build: the registers and spills of the stage kernels, and ptxas's
// performance warnings about them (a serialised wgmma pipeline), which the build record carries to the
// log and the agents' context. The text is ptxas 13.0's, as it printed it for a sparse_mla candidate.
#include "autoresearch/build/builder.h"
#include "catch.h"

using namespace ar;

namespace {

const char* kReport =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'ar_plan' for 'sm_90a'\n"
    "ptxas info    : Function properties for ar_plan\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 30 registers, used 0 barriers, 380 bytes cmem[0]\n"
    "ptxas info    : (C7519) warpgroup.arrive is injected in around line 6686 by compiler to allow use of registers "
    "in GMMA in function 'ar_stage0'\n"
    "ptxas info    : (C7520) Potential Performance Loss: wgmma.mma_async instructions are serialized due to program "
    "dependence on compiler-inserted WG.AR in divergent path in the function 'ar_stage0'\n"
    "ptxas info    : (C7520) Potential Performance Loss: wgmma.mma_async instructions are serialized due to program "
    "dependence on compiler-inserted WG.AR in divergent path in the function 'ar_stage0'\n"
    "ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized due to the "
    "presence of Extern calls in the function 'ar_plan'\n"
    "ptxas info    : Compiling entry function 'ar_stage0' for 'sm_90a'\n"
    "ptxas info    : Function properties for ar_stage0\n"
    "    0 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
    "ptxas info    : Used 168 registers, used 5 barriers, 384 bytes cmem[0]\n";

}  // namespace

TEST_CASE("ptxas's performance warnings about stage kernels are kept, once each, beside registers and spills") {
  BuildResult r;
  parse_ptxas_report(kReport, r);
  REQUIRE(r.registers);
  CHECK(*r.registers == 168);   // ar_plan's 30 do not count
  REQUIRE(r.spill_bytes);
  CHECK(*r.spill_bytes == 8);
  // The C7519 note is not a loss; ar_plan runs once, outside timing; the repeat is dropped.
  REQUIRE(r.ptxas_warnings.size() == 1);
  CHECK(r.ptxas_warnings[0] ==
        "ar_stage0: (C7520) wgmma.mma_async instructions are serialized due to program dependence on "
        "compiler-inserted WG.AR in divergent path");

  nlohmann::json j = build_report_json(r);
  CHECK(j["registers"] == 168);
  CHECK(j["spills"] == 8);
  REQUIRE(j.contains("ptxas_warnings"));
  CHECK(j["ptxas_warnings"].size() == 1);

  BuildResult quiet;
  parse_ptxas_report("ptxas info    : Function properties for ar_stage0\n"
                     "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                     "ptxas info    : Used 168 registers, used 5 barriers\n",
                     quiet);
  CHECK(quiet.ptxas_warnings.empty());
  CHECK_FALSE(build_report_json(quiet).contains("ptxas_warnings"));   // the log line stays as it was
}

TEST_CASE("a dispatch variant's stage kernel is a stage kernel for the warnings too") {
  BuildResult r;
  parse_ptxas_report("ptxas info    : (C7520) Potential Performance Loss: wgmma.mma_async instructions are "
                     "serialized due to program dependence on compiler-inserted WG.AR in divergent path in the "
                     "function 'ar_k1_stage0'\n",
                     r);
  REQUIRE(r.ptxas_warnings.size() == 1);
  CHECK(r.ptxas_warnings[0].rfind("ar_k1_stage0: (C7520) ", 0) == 0);
}
