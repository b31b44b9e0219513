// The declared tunables as a discrete space: ordered value lists (order defines
// "neighbouring") and the manifest's constraints between them.
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "autoresearch/agents/tuner.h"
#include "autoresearch/core/manifest.h"
#include "random_draw.h"

namespace ar {

std::string canonical(const Tunables& t) {
  std::string out;
  for (const auto& [name, value] : t) {  // std::map: already sorted by name
    if (!out.empty()) out += ',';
    out += fmt::format("{}={}", name, value);
  }
  return out;
}

SearchSpace::SearchSpace(const Manifest& m) : m_(m) {}

// Evaluated here rather than through satisfies_constraints(): the space must also
// insist on exactly the declared names and allowed values, and a point that cannot
// be evaluated is simply not in the space.
bool SearchSpace::feasible(const Tunables& t, std::string* why) const {
  auto fail = [&](std::string reason) {
    if (why) *why = std::move(reason);
    return false;
  };
  if (t.size() != m_.tunables.size()) {
    return fail(fmt::format("{} tunables given, {} declared", t.size(), m_.tunables.size()));
  }
  std::map<std::string, double> vars;
  for (const Tunable& tunable : m_.tunables) {
    auto it = t.find(tunable.name);
    if (it == t.end()) return fail(fmt::format("tunable {} has no value", tunable.name));
    bool allowed = false;
    for (long long v : tunable.values) allowed = allowed || v == it->second;
    if (!allowed) {
      return fail(fmt::format("{}={} is not an allowed value", tunable.name, it->second));
    }
    vars[tunable.name] = static_cast<double>(it->second);
  }
  for (const Expression& constraint : m_.constraints) {
    std::string error;
    std::optional<double> v = constraint.evaluate(vars, &error);
    if (!v) return fail(fmt::format("constraint '{}': {}", constraint.text(), error));
    if (*v == 0 || std::isnan(*v)) return fail(fmt::format("constraint '{}' fails", constraint.text()));
  }
  return true;
}

Tunables SearchSpace::random_point(std::mt19937_64& rng) const {
  Tunables t;
  for (const Tunable& tunable : m_.tunables) {
    if (tunable.values.empty()) continue;
    t[tunable.name] = tunable.values[detail::uniform_index(rng, tunable.values.size())];
  }
  return t;
}

std::vector<Tunables> SearchSpace::neighbours(const Tunables& t) const {
  std::vector<size_t> idx = indices(t);
  std::vector<Tunables> out;
  for (size_t d = 0; d < m_.tunables.size(); ++d) {
    size_t n = m_.tunables[d].values.size();
    for (int step : {-1, +1}) {
      if ((step < 0 && idx[d] == 0) || (step > 0 && idx[d] + 1 >= n)) continue;
      std::vector<size_t> moved = idx;
      moved[d] = idx[d] + step;
      out.push_back(at(moved));
    }
  }
  return out;
}

double SearchSpace::size() const {
  double n = 1;
  for (const Tunable& tunable : m_.tunables) n *= static_cast<double>(tunable.values.size());
  return n;
}

std::vector<size_t> SearchSpace::indices(const Tunables& t) const {
  std::vector<size_t> idx;
  idx.reserve(m_.tunables.size());
  for (const Tunable& tunable : m_.tunables) {
    auto it = t.find(tunable.name);
    long long want = it != t.end() ? it->second : tunable.default_value;
    size_t best = 0;
    for (size_t i = 1; i < tunable.values.size(); ++i) {
      if (std::llabs(tunable.values[i] - want) < std::llabs(tunable.values[best] - want)) best = i;
    }
    idx.push_back(best);
  }
  return idx;
}

Tunables SearchSpace::at(const std::vector<size_t>& idx) const {
  Tunables t;
  for (size_t d = 0; d < m_.tunables.size() && d < idx.size(); ++d) {
    const Tunable& tunable = m_.tunables[d];
    if (idx[d] < tunable.values.size()) t[tunable.name] = tunable.values[idx[d]];
  }
  return t;
}

Tunables SearchSpace::decode(uint64_t code) const {
  std::vector<size_t> idx;
  for (const Tunable& tunable : m_.tunables) {
    uint64_t n = tunable.values.empty() ? 1 : tunable.values.size();
    idx.push_back(static_cast<size_t>(code % n));
    code /= n;
  }
  return at(idx);
}

std::vector<uint64_t> SearchSpace::feasible_codes() const {
  std::vector<uint64_t> codes;
  auto total = static_cast<uint64_t>(size());
  for (uint64_t code = 0; code < total; ++code) {
    if (feasible(decode(code))) codes.push_back(code);
  }
  return codes;
}

}  // namespace ar
