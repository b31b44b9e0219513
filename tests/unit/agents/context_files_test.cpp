// The shipped context/hardware files: each GPU name picks the file meant for it,
// and a variant without confirmed peaks picks none (the harness's measured peaks
// then apply, which can never wrongly reject a fast candidate).
#include <filesystem>

#include "autoresearch/core/hardware.h"
#include "catch.h"

namespace ar {
namespace {

const std::filesystem::path kContext = std::filesystem::path(AR_TEST_SOURCE_DIR) / "context";

std::string file_for(const std::string& device) {
  auto hw = find_hardware(kContext, device);
  return hw ? hw->json_file.filename().string() : "";
}

TEST_CASE("each GPU name finds its own hardware file") {
  CHECK(file_for("NVIDIA H100 80GB HBM3") == "h100.json");
  CHECK(file_for("NVIDIA H100 PCIe") == "h100_pcie.json");
  CHECK(file_for("NVIDIA H200") == "h200.json");
  CHECK(file_for("NVIDIA B200") == "b200.json");
}

TEST_CASE("variants whose peaks differ from the file's match no file") {
  CHECK(file_for("NVIDIA H100 NVL") == "");   // 3.9 TB/s: above the SXM file's 3.35
  CHECK(file_for("NVIDIA GB200") == "");      // up to 1200 W: above the B200 file's rates
  CHECK(file_for("NVIDIA A100-SXM4-80GB") == "");
}

TEST_CASE("every hardware file has its peaks and an existing doc") {
  for (const char* device : {"NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", "NVIDIA H200", "NVIDIA B200"}) {
    INFO(device);
    auto hw = find_hardware(kContext, device);
    REQUIRE(hw);
    CHECK(hw->peak_flops > 1e14);
    CHECK(hw->peak_bytes_per_s > 1e12);
    CHECK(std::filesystem::is_regular_file(hw->doc_file));
  }
  // the datasheet order of the parts, a check on typos in the exponents
  CHECK(find_hardware(kContext, "NVIDIA H100 PCIe")->peak_flops < find_hardware(kContext, "NVIDIA H200")->peak_flops);
  CHECK(find_hardware(kContext, "NVIDIA H200")->peak_flops < find_hardware(kContext, "NVIDIA B200")->peak_flops);
  CHECK(find_hardware(kContext, "NVIDIA H100 80GB HBM3")->peak_bytes_per_s <
        find_hardware(kContext, "NVIDIA H200")->peak_bytes_per_s);
}

}  // namespace
}  // namespace ar
