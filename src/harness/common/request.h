#pragma once
// Reading the fields of one protocol request, and writing the pieces replies
// share. A missing or mistyped field throws HarnessError("bad_request") naming
// the field, so the driver learns exactly what it sent wrong.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autoresearch/harness/problem.h"

namespace ar::harness {

using nlohmann::json;

const json& required_field(const json& request, const char* key);
std::string string_field(const json& request, const char* key);
double number_field(const json& request, const char* key, double fallback);
long long integer_field(const json& request, const char* key, long long fallback);
bool bool_field(const json& request, const char* key, bool fallback);
uint64_t seed_field(const json& request, const char* key, uint64_t fallback);

// "workload": {"name": ..., "params": {...}}; the params object is what the
// problem reads.
struct WorkloadRef {
  std::string name;
  json params;
};
WorkloadRef workload_field(const json& request);

// [{"output","abs","rel","cosine"}]; a missing cosine is "not checked" (< 0).
std::vector<Tolerance> tolerances_field(const json& request, const char* key);

json to_json(const OutputCheck& check);
json to_json(const std::vector<OutputCheck>& checks);

// True when every output passed; otherwise *reason says which output failed and
// how ("c: 12 of 4096 elements outside tolerance; first c[3,17]=nan ref=0.0123").
bool checks_pass(const std::vector<OutputCheck>& checks, std::string* reason);

// Independent streams from one seed (splitmix64 of seed and stream), so inputs
// for (seed, distribution) or (seed, rotation) never overlap.
uint64_t derive_seed(uint64_t seed, uint64_t stream);

}  // namespace ar::harness
