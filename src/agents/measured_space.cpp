// The measured-space file (docs/spaces.md): read, validated in full, written.
// A space that misses a feasible configuration, or holds one twice, would give
// a strategy comparison that depends on which points happen to be there, so
// both are refused.
#include "autoresearch/agents/measured_space.h"

#include <cmath>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "autoresearch/agents/tuner.h"
#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"

namespace ar {

namespace {

// Every error names where it is: "FILE: line 12: ..." or "FILE: header: tunables[2]: ...".
[[noreturn]] void fail(const std::string& where, const std::string& what) { throw usage_error(where + ": " + what); }

std::vector<Tunable> parse_space_tunables(const nlohmann::json& h, const std::string& where) {
  const auto& list = h.contains("tunables") ? h["tunables"] : nlohmann::json();
  if (!list.is_array() || list.empty())
    fail(where, "tunables: expected a non-empty array of {name, values, default}");
  std::vector<Tunable> out;
  std::set<std::string> names;
  for (size_t i = 0; i < list.size(); ++i) {
    const auto& t = list[i];
    std::string at = fmt::format("{}: tunables[{}]", where, i);
    if (!t.is_object() || !t.contains("name") || !t["name"].is_string())
      fail(at, "expected an object with a string \"name\"");
    Tunable tu;
    tu.name = t["name"].get<std::string>();
    if (!names.insert(tu.name).second) fail(at, "duplicate tunable '" + tu.name + "'");
    if (!t.contains("values") || !t["values"].is_array() || t["values"].empty())
      fail(at, "values: expected a non-empty array of integers");
    std::set<long long> seen;
    for (const auto& v : t["values"]) {
      if (!v.is_number_integer()) fail(at, "values: expected integers, got " + v.dump());
      if (!seen.insert(v.get<long long>()).second) fail(at, "values: duplicate value " + v.dump());
      tu.values.push_back(v.get<long long>());
    }
    if (!t.contains("default") || !t["default"].is_number_integer()) fail(at, "default: expected an integer");
    tu.default_value = t["default"].get<long long>();
    if (!seen.count(tu.default_value))
      fail(at, fmt::format("default: {} is not one of the values", tu.default_value));
    out.push_back(std::move(tu));
  }
  return out;
}

std::vector<Expression> parse_space_constraints(const nlohmann::json& h, const std::vector<Tunable>& tunables,
                                                const std::string& where) {
  std::vector<Expression> out;
  if (!h.contains("constraints")) return out;
  if (!h["constraints"].is_array()) fail(where, "constraints: expected an array of expressions");
  std::set<std::string> names;
  for (const auto& t : tunables) names.insert(t.name);
  for (size_t i = 0; i < h["constraints"].size(); ++i) {
    const auto& c = h["constraints"][i];
    std::string at = fmt::format("{}: constraints[{}]", where, i);
    if (!c.is_string()) fail(at, "expected a string");
    std::string err;
    auto e = Expression::parse(c.get<std::string>(), &err);
    if (!e) fail(at, "'" + c.get<std::string>() + "': " + err);
    for (const auto& id : e->identifiers())
      if (!names.count(id)) fail(at, "'" + c.get<std::string>() + "' uses '" + id + "', which is not a tunable");
    out.push_back(*e);
  }
  return out;
}

SpacePoint parse_point(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) fail(where, "expected an object {tunables, time_us} or {tunables, decision, reason}");
  SpacePoint p;
  if (!j.contains("tunables") || !j["tunables"].is_object()) fail(where, "tunables: expected an object {NAME: value}");
  for (const auto& [name, v] : j["tunables"].items()) {
    if (!v.is_number_integer()) fail(where, fmt::format("tunables.{}: expected an integer, got {}", name, v.dump()));
    p.tunables[name] = v.get<long long>();
  }
  bool has_time = j.contains("time_us") && !j["time_us"].is_null();
  if (has_time) {
    if (!j["time_us"].is_number()) fail(where, "time_us: expected a number of microseconds");
    double t = j["time_us"].get<double>();
    if (!(std::isfinite(t) && t > 0)) fail(where, fmt::format("time_us: {} is not a positive time", t));
    p.time_us = t;
  }
  if (j.contains("decision")) {
    if (!j["decision"].is_string()) fail(where, "decision: expected a string (build_error, wrong, ...)");
    auto d = parse_decision(j["decision"].get<std::string>());
    if (!d) fail(where, "decision: '" + j["decision"].get<std::string>() + "' is not a decision");
    p.decision = *d;
  }
  if (has_time && is_candidate_failure(p.decision))
    fail(where, fmt::format("a configuration with a time cannot be a failure ({})", decision_name(p.decision)));
  if (!has_time) {
    if (!j.contains("decision"))
      fail(where, "expected time_us, or a decision saying why the configuration has no time");
    if (!is_candidate_failure(p.decision))
      fail(where, fmt::format("decision: {} is not a failure of the configuration (build_error, wrong, crash, "
                              "timeout, rejected_by_guard), and there is no time",
                              decision_name(p.decision)));
  }
  p.reason = j.value("reason", "");
  for (const auto& [k, v] : j.items())
    if (k != "tunables" && k != "time_us" && k != "decision" && k != "reason") p.detail[k] = v;
  return p;
}

}  // namespace

const SpacePoint* MeasuredSpace::find(const Tunables& t) const {
  auto it = index.find(canonical(t));
  return it == index.end() ? nullptr : &points[it->second];
}

double MeasuredSpace::best_time_us() const {
  double best = INFINITY;
  for (const auto& p : points)
    if (p.time_us) best = std::min(best, *p.time_us);
  return best;
}

size_t MeasuredSpace::within(double target) const {
  double limit = best_time_us() * (1 + target);
  size_t n = 0;
  for (const auto& p : points) n += p.time_us && *p.time_us <= limit;
  return n;
}

size_t MeasuredSpace::failures() const {
  size_t n = 0;
  for (const auto& p : points) n += !p.time_us;
  return n;
}

MeasuredSpace parse_measured_space(const std::string& text, const std::string& origin) {
  // Either one JSON document {"space": ..., "points": [...]}, or JSON lines.
  std::vector<std::pair<std::string, nlohmann::json>> lines;   // (where, value)
  nlohmann::json header;
  std::string header_where = origin + ": header";
  nlohmann::json whole = nlohmann::json::parse(text, nullptr, false);
  if (!whole.is_discarded() && whole.is_object() && whole.contains("points")) {
    if (!whole.contains("space") || !whole["space"].is_object())
      fail(origin, "a JSON space file holds {\"space\": {header}, \"points\": [...]}");
    header = whole["space"];
    if (!whole["points"].is_array()) fail(origin, "points: expected an array");
    for (size_t i = 0; i < whole["points"].size(); ++i)
      lines.emplace_back(fmt::format("{}: points[{}]", origin, i), whole["points"][i]);
  } else {
    std::istringstream in(text);
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      std::string where = fmt::format("{}: line {}", origin, number);
      nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded()) fail(where, "not valid JSON");
      if (header.is_null()) {
        if (!j.is_object() || j.value("type", "") != "space")
          fail(where, "the first line must be the header {\"type\": \"space\", ...}");
        header = j;
        header_where = where + " (header)";
        continue;
      }
      lines.emplace_back(where, std::move(j));
    }
    if (header.is_null()) fail(origin, "empty: expected a header line and one line per configuration");
  }
  if (header.contains("v") && (!header["v"].is_number_integer() || header["v"].get<int>() > kSpaceFormatVersion))
    fail(header_where, fmt::format("v: format {} is newer than this build reads ({})", header["v"].dump(),
                                   kSpaceFormatVersion));

  MeasuredSpace s;
  s.header = header;
  s.manifest.name = header.value("kernel", "space");
  s.manifest.tunables = parse_space_tunables(header, header_where);
  s.manifest.constraints = parse_space_constraints(header, s.manifest.tunables, header_where);
  SearchSpace space(s.manifest);
  std::string why;
  if (!space.feasible(s.start(), &why)) fail(header_where, "the defaults are not in the space: " + why);

  for (auto& [where, j] : lines) {
    SpacePoint p = parse_point(j, where);
    if (!space.feasible(p.tunables, &why)) fail(where, canonical(p.tunables) + " is not in the declared space: " + why);
    std::string key = canonical(p.tunables);
    if (!s.index.emplace(key, s.points.size()).second) fail(where, key + " appears twice");
    s.points.push_back(std::move(p));
  }
  // Completeness: every feasible configuration, so a replay never meets a hole.
  if (space.size() <= 1e7) {
    size_t feasible = 0;
    std::string missing;
    for (uint64_t code : space.feasible_codes()) {
      ++feasible;
      std::string key = canonical(space.decode(code));
      if (missing.empty() && !s.index.count(key)) missing = key;
    }
    if (!missing.empty())
      fail(origin, fmt::format("the space declares {} feasible configurations and the file holds {}; missing, "
                               "e.g., {} (a measured space must hold every one: narrow the declared values to "
                               "a subset instead)",
                               feasible, s.points.size(), missing));
  } else {
    fail(header_where, fmt::format("the declared space has {:.3g} points: too many to replay", space.size()));
  }
  const SpacePoint* start = s.find(s.start());
  if (!start || !start->time_us)
    fail(origin, "the start (the defaults, " + canonical(s.start()) + ") has no time; a run starts from it");
  return s;
}

MeasuredSpace load_measured_space(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    throw usage_error(fmt::format("{}: no such space file", file.string()));
  return parse_measured_space(read_file(file), file.string());
}

nlohmann::json space_header(const Manifest& m) {
  nlohmann::json tunables = nlohmann::json::array();
  for (const auto& t : m.tunables)
    tunables.push_back({{"name", t.name}, {"values", t.values}, {"default", t.default_value}});
  nlohmann::json constraints = nlohmann::json::array();
  for (const auto& c : m.constraints) constraints.push_back(c.text());
  return {{"type", "space"}, {"v", kSpaceFormatVersion}, {"kernel", m.name}, {"tunables", tunables},
          {"constraints", constraints}};
}

nlohmann::json to_json(const SpacePoint& p) {
  nlohmann::json j = {{"tunables", p.tunables}};
  if (p.time_us) {
    j["time_us"] = *p.time_us;
  } else {
    j["decision"] = decision_name(p.decision);
    j["reason"] = p.reason;
  }
  for (const auto& [k, v] : p.detail.items()) j[k] = v;
  return j;
}

std::string space_file_text(const nlohmann::json& header, const std::vector<SpacePoint>& points) {
  std::string out = header.dump() + "\n";
  for (const auto& p : points) out += to_json(p).dump() + "\n";
  return out;
}

}  // namespace ar
