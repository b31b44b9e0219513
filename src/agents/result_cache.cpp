// The result cache: every evaluated configuration, one JSON line each, so no
// configuration is measured twice under the same context (SPEC §5, §8).
#include <sstream>

#include <fmt/format.h>

#include "autoresearch/agents/result_cache.h"
#include "autoresearch/agents/tuner.h"
#include "autoresearch/util/fs.h"
#include "autoresearch/util/hash.h"

namespace ar {

namespace {
constexpr int kFormatVersion = 1;

std::string index_key(const std::string& context_key, const Tunables& t) {
  return context_key + '\n' + canonical(t);
}
}  // namespace

// Each field is length-prefixed so no two different contexts hash the same text
// (a field containing the separator cannot shift the boundaries).
std::string CacheContext::key() const {
  std::string text;
  auto field = [&](const char* name, const std::string& value) {
    text += fmt::format("{}:{}:{}\n", name, value.size(), value);
  };
  field("source", source_hash);
  field("compiler", compiler);
  field("harness", harness_hash);
  field("workloads", workloads_hash);
  field("device", device);
  return sha256_hex(text);
}

nlohmann::json to_json(const CachedResult& r) {
  nlohmann::json outcome = {{"decision", decision_name(r.outcome.decision)}, {"reason", r.outcome.reason}};
  if (r.outcome.quick_geomean_us) outcome["quick_geomean_us"] = *r.outcome.quick_geomean_us;
  if (r.outcome.speedup) outcome["speedup"] = *r.outcome.speedup;
  return {{"v", kFormatVersion},
          {"context", r.context_key},
          {"tunables", r.tunables},
          {"outcome", outcome},
          {"median_us", r.median_us},
          {"run_id", r.run_id},
          {"candidate_id", r.candidate_id}};
}

// Throws nlohmann::json exceptions on a line of the wrong shape; the loader skips it.
CachedResult cached_result_from_json(const nlohmann::json& j) {
  CachedResult r;
  r.context_key = j.at("context").get<std::string>();
  r.tunables = j.at("tunables").get<Tunables>();
  const nlohmann::json& o = j.at("outcome");
  r.outcome.decision = parse_decision(o.value("decision", "")).value_or(Decision::Error);
  r.outcome.reason = o.value("reason", "");
  if (o.contains("quick_geomean_us") && o["quick_geomean_us"].is_number()) {
    r.outcome.quick_geomean_us = o["quick_geomean_us"].get<double>();
  }
  if (o.contains("speedup") && o["speedup"].is_number()) {
    r.outcome.speedup = o["speedup"].get<double>();
  }
  if (j.contains("median_us")) r.median_us = j["median_us"].get<std::map<std::string, double>>();
  r.run_id = j.value("run_id", "");
  r.candidate_id = j.value("candidate_id", 0);
  return r;
}

ResultCache::ResultCache(std::filesystem::path file) : file_(std::move(file)) {
  std::error_code ec;
  if (!std::filesystem::exists(file_, ec)) return;
  std::string text = read_file(file_);
  // A crash mid-append leaves a line without its newline; the next append would
  // glue a good line onto it, so terminate it first (see add()).
  torn_tail_ = !text.empty() && text.back() != '\n';
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    // An unreadable line (torn by a crash, or from a newer format) is skipped: the
    // cache only saves measurements, it never decides anything.
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) continue;
    try {
      if (j.value("v", 0) > kFormatVersion) continue;
      remember(cached_result_from_json(j));
    } catch (const nlohmann::json::exception&) {
      continue;
    }
  }
}

const CachedResult* ResultCache::find(const std::string& context_key, const Tunables& t) const {
  auto it = index_.find(index_key(context_key, t));
  return it == index_.end() ? nullptr : &entries_[it->second];
}

std::vector<const CachedResult*> ResultCache::all_for(const std::string& context_key) const {
  std::vector<const CachedResult*> out;
  for (const CachedResult& r : entries_) {
    if (r.context_key == context_key) out.push_back(&r);
  }
  return out;
}

void ResultCache::add(const CachedResult& r) {
  if (!file_.empty()) {
    if (!dir_ready_) {
      std::filesystem::create_directories(file_.parent_path().empty() ? "." : file_.parent_path());
      dir_ready_ = true;
    }
    if (torn_tail_) {
      append_line_durable(file_, "");  // ends the torn line; the loader skips it
      torn_tail_ = false;
    }
    append_line_durable(file_, to_json(r).dump());
  }
  remember(r);
}

// A later line for the same configuration replaces the earlier one.
void ResultCache::remember(const CachedResult& r) {
  std::string key = index_key(r.context_key, r.tunables);
  auto it = index_.find(key);
  if (it != index_.end()) {
    entries_[it->second] = r;
  } else {
    index_.emplace(std::move(key), entries_.size());
    entries_.push_back(r);
  }
}

}  // namespace ar
