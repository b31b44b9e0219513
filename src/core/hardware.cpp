#include "autoresearch/core/hardware.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include <nlohmann/json.hpp>

#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"

namespace fs = std::filesystem;

namespace ar {

static std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::optional<HardwareSpec> find_hardware(const fs::path& context_dir, const std::string& device_name) {
  fs::path dir = context_dir / "hardware";
  if (!fs::is_directory(dir)) return std::nullopt;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(read_file(f));
    } catch (const nlohmann::json::parse_error& e) {
      throw usage_error(f.string() + ": not valid JSON: " + e.what());
    }
    if (!j.contains("match") || !j["match"].is_array()) continue;
    bool all = !j["match"].empty();
    for (const auto& m : j["match"])
      if (!m.is_string() || lower(device_name).find(lower(m.get<std::string>())) == std::string::npos) all = false;
    if (!all) continue;
    HardwareSpec s;
    s.name = j.value("name", device_name);
    s.peak_flops = j.value("peak_flops", 0.0);
    s.peak_bytes_per_s = j.value("peak_bytes_per_s", 0.0);
    s.json_file = f;
    if (j.contains("doc")) s.doc_file = dir / j["doc"].get<std::string>();
    return s;
  }
  return std::nullopt;
}

}  // namespace ar
