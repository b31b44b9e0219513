#pragma once
// Machine facts for the roofline and the physical floor, from
// context/hardware/*.json ({"match": ["H200"], "peak_flops": ..,
// "peak_bytes_per_s": .., "doc": "h200.md"}); the .md beside it is what agents read.
#include <filesystem>
#include <optional>
#include <string>

namespace ar {

struct HardwareSpec {
  std::string name;
  double peak_flops = 0;
  double peak_bytes_per_s = 0;
  std::filesystem::path json_file;
  std::filesystem::path doc_file;   // may be empty
};

// The first spec whose "match" strings all occur in the device name (case-insensitive).
std::optional<HardwareSpec> find_hardware(const std::filesystem::path& context_dir,
                                          const std::string& device_name);

}  // namespace ar
