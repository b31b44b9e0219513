// OUT.partial of `autoresearch space` (space_progress.h).
#include "space_progress.h"

#include <sstream>

#include <fmt/format.h>

#include "autoresearch/agents/tuner.h"
#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"

namespace ar {

namespace {

nlohmann::json entry_json(const std::vector<Tunables>& group, const SpaceEntry& e) {
  nlohmann::json j = {{"configs", group}, {"build", e.build}};
  if (e.failure) {
    j["decision"] = decision_name(*e.failure);
    j["reason"] = e.reason;
  } else {
    j["ratio"] = e.ratio;
    j["ci_low"] = e.ci_low;
    j["ci_high"] = e.ci_high;
    j["reference_us"] = e.reference_us;
    j["gpu_seconds"] = e.gpu_seconds;
  }
  return j;
}

SpaceEntry entry_from(const nlohmann::json& j) {
  SpaceEntry e;
  e.build = j.value("build", "");
  if (j.contains("decision")) {
    auto d = parse_decision(j["decision"].get<std::string>());
    if (!d) throw std::runtime_error("unknown decision " + j["decision"].dump());
    e.failure = *d;
    e.reason = j.value("reason", "");
  } else {
    e.ratio = j.at("ratio").get<std::vector<double>>();
    e.ci_low = j.at("ci_low").get<std::vector<double>>();
    e.ci_high = j.at("ci_high").get<std::vector<double>>();
    e.reference_us = j.at("reference_us").get<std::vector<double>>();
    e.gpu_seconds = j.value("gpu_seconds", 0.0);
  }
  return e;
}

}  // namespace

SpaceProgress::SpaceProgress(std::filesystem::path file, const nlohmann::json& identity) : file_(std::move(file)) {
  std::error_code ec;
  if (!std::filesystem::exists(file_, ec)) {
    append_line_durable(file_, nlohmann::json{{"type", "space_progress"}, {"identity", identity}}.dump());
    return;
  }
  std::istringstream in(read_file(file_));
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (number == 1) {
      if (j.is_discarded() || !j.is_object() || j.value("type", "") != "space_progress")
        throw usage_error(fmt::format("{}: not the progress of a space measurement; remove it to start afresh",
                                      file_.string()));
      if (j["identity"] != identity)
        throw usage_error(fmt::format("{}: the progress of a measurement with other tunables, workloads or "
                                      "sampling; give the same options to continue it, or remove it to start "
                                      "afresh",
                                      file_.string()));
      continue;
    }
    // A line cut short by a kill is the only damage an append can leave: the
    // configurations on it are measured again.
    if (j.is_discarded() || !j.is_object() || !j.contains("configs")) continue;
    try {
      SpaceEntry e = entry_from(j);
      for (const auto& t : j["configs"]) entries_[canonical(t.get<Tunables>())] = e;
      if (!e.failure) measured_.push_back(e);
    } catch (const std::exception& ex) {
      throw usage_error(fmt::format("{}: line {}: {}; remove the file to start afresh", file_.string(), number,
                                    ex.what()));
    }
  }
}

const SpaceEntry* SpaceProgress::find(const Tunables& t) const {
  auto it = entries_.find(canonical(t));
  return it == entries_.end() ? nullptr : &it->second;
}

void SpaceProgress::add(const std::vector<Tunables>& group, const SpaceEntry& e) {
  append_line_durable(file_, entry_json(group, e).dump());
  for (const auto& t : group) entries_[canonical(t)] = e;
  if (!e.failure) measured_.push_back(e);
}

std::vector<std::vector<double>> SpaceProgress::reference_medians(size_t workloads) const {
  std::vector<std::vector<double>> out(workloads);
  for (const auto& e : measured_)
    for (size_t w = 0; w < workloads && w < e.reference_us.size(); ++w) out[w].push_back(e.reference_us[w]);
  return out;
}

}  // namespace ar
