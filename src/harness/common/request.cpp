#include "common/request.h"

#include <cmath>

#include "common/device.h"

namespace ar::harness {

namespace {

[[noreturn]] void bad(const std::string& what) { throw HarnessError("bad_request", what); }

// JSON cannot carry NaN or Inf; a reply must stay parseable whatever the kernel did.
json finite_or_null(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

}  // namespace

const json& required_field(const json& request, const char* key) {
  auto it = request.find(key);
  if (it == request.end()) bad(std::string("missing field '") + key + "'");
  return *it;
}

std::string string_field(const json& request, const char* key) {
  const json& v = required_field(request, key);
  if (!v.is_string()) bad(std::string("field '") + key + "': expected a string, got " + v.dump());
  return v.get<std::string>();
}

double number_field(const json& request, const char* key, double fallback) {
  auto it = request.find(key);
  if (it == request.end()) return fallback;
  if (!it->is_number()) bad(std::string("field '") + key + "': expected a number, got " + it->dump());
  return it->get<double>();
}

long long integer_field(const json& request, const char* key, long long fallback) {
  auto it = request.find(key);
  if (it == request.end()) return fallback;
  if (!it->is_number_integer())
    bad(std::string("field '") + key + "': expected an integer, got " + it->dump());
  return it->get<long long>();
}

bool bool_field(const json& request, const char* key, bool fallback) {
  auto it = request.find(key);
  if (it == request.end()) return fallback;
  if (!it->is_boolean()) bad(std::string("field '") + key + "': expected true or false, got " + it->dump());
  return it->get<bool>();
}

uint64_t seed_field(const json& request, const char* key, uint64_t fallback) {
  auto it = request.find(key);
  if (it == request.end()) return fallback;
  if (!it->is_number_integer()) bad(std::string("field '") + key + "': expected an integer seed, got " + it->dump());
  if (it->is_number_unsigned()) return it->get<uint64_t>();
  return static_cast<uint64_t>(it->get<long long>());
}

WorkloadRef workload_field(const json& request) {
  const json& w = required_field(request, "workload");
  if (!w.is_object()) bad("field 'workload': expected an object {name, params}");
  WorkloadRef out;
  auto name = w.find("name");
  if (name != w.end() && name->is_string()) out.name = name->get<std::string>();
  auto params = w.find("params");
  if (params == w.end() || !params->is_object())
    bad("field 'workload.params': expected an object");
  out.params = *params;
  return out;
}

std::vector<Tolerance> tolerances_field(const json& request, const char* key) {
  const json& list = required_field(request, key);
  if (!list.is_array()) bad(std::string("field '") + key + "': expected an array");
  std::vector<Tolerance> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const json& t = list[i];
    std::string at = std::string(key) + "[" + std::to_string(i) + "]";
    if (!t.is_object()) bad("field '" + at + "': expected an object {output, abs, rel, cosine}");
    Tolerance tol;
    auto output = t.find("output");
    if (output == t.end() || !output->is_string()) bad("field '" + at + ".output': expected a string");
    tol.output = output->get<std::string>();
    tol.abs = number_field(t, "abs", 0);
    tol.rel = number_field(t, "rel", 0);
    auto cos = t.find("cosine");
    tol.cosine = (cos == t.end() || cos->is_null()) ? -1 : number_field(t, "cosine", -1);
    if (tol.abs < 0 || tol.rel < 0) bad("field '" + at + "': abs and rel must be >= 0");
    out.push_back(tol);
  }
  return out;
}

json to_json(const OutputCheck& c) {
  return json{{"output", c.output},
              {"pass", c.pass},
              {"max_abs_err", finite_or_null(c.max_abs_err)},
              {"max_rel_err", finite_or_null(c.max_rel_err)},
              {"cosine_diff", finite_or_null(c.cosine_diff)},
              {"mismatches", c.mismatches},
              {"nonfinite", c.nonfinite},
              {"elements", c.elements},
              {"detail", c.detail}};
}

json to_json(const std::vector<OutputCheck>& checks) {
  json out = json::array();
  for (const auto& c : checks) out.push_back(to_json(c));
  return out;
}

bool checks_pass(const std::vector<OutputCheck>& checks, std::string* reason) {
  if (checks.empty()) {
    *reason = "the problem compared no outputs";
    return false;
  }
  for (const auto& c : checks) {
    if (c.pass) continue;
    std::string r = c.output + ":";
    if (c.mismatches > 0)
      r += " " + std::to_string(c.mismatches) + " of " + std::to_string(c.elements) +
           " elements outside tolerance;";
    if (c.nonfinite > 0) r += " " + std::to_string(c.nonfinite) + " non-finite;";
    if (c.mismatches == 0 && c.nonfinite == 0) r += " cosine check failed;";
    if (!c.detail.empty()) r += " first " + c.detail;
    if (r.back() == ';') r.pop_back();
    *reason = r;
    return false;
  }
  reason->clear();
  return true;
}

uint64_t derive_seed(uint64_t seed, uint64_t stream) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ull * (stream + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace ar::harness
