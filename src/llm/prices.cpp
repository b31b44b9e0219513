#include "autoresearch/llm/prices.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "autoresearch/llm/llm_client.h"
#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"

namespace ar {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// OpenRouter and LiteLLM name models "vendor/model"; prices go by the model.
std::string normalise_model(const std::string& model) {
  std::string m = lower(model);
  if (size_t slash = m.rfind('/'); slash != std::string::npos) m = m.substr(slash + 1);
  return m;
}

bool all_digits(const std::string& s, size_t from, size_t count) {
  if (from + count > s.size()) return false;
  return std::all_of(s.begin() + from, s.begin() + from + count,
                     [](unsigned char c) { return std::isdigit(c); });
}

// What may follow an exact pattern and still name the same model: a dated
// snapshot (-20250514, -2025-04-14, possibly followed by more), "-latest",
// or a tag ("@20251101" on Vertex, ":8b" on Ollama).
bool is_variant_suffix(const std::string& rest) {
  if (rest.empty()) return true;
  if (rest[0] == '@' || rest[0] == ':') return true;
  if (rest == "-latest") return true;
  auto ends_or_continues = [&](size_t at) { return at == rest.size() || rest[at] == '-' || rest[at] == '@' || rest[at] == ':'; };
  if (rest[0] == '-' && all_digits(rest, 1, 8) && ends_or_continues(9)) return true;
  if (rest[0] == '-' && all_digits(rest, 1, 4) && rest.size() >= 11 && rest[5] == '-' &&
      all_digits(rest, 6, 2) && rest[8] == '-' && all_digits(rest, 9, 2) && ends_or_continues(11)) {
    return true;
  }
  return false;
}

// Length of the literal part when `pattern` matches, else 0.
size_t match_length(const std::string& pattern, const std::string& model) {
  if (!pattern.empty() && pattern.back() == '*') {
    std::string prefix = pattern.substr(0, pattern.size() - 1);
    return model.rfind(prefix, 0) == 0 ? std::max<size_t>(prefix.size(), 1) : 0;
  }
  if (model.rfind(pattern, 0) != 0) return 0;
  return is_variant_suffix(model.substr(pattern.size())) ? pattern.size() : 0;
}

[[noreturn]] void bad_field(const std::string& origin, const std::string& field, const std::string& expected) {
  throw Fatal(kExitUsage, fmt::format("{}: {}: expected {}", origin, field, expected));
}

double price_field(const nlohmann::json& entry, const std::string& origin, const std::string& where,
                   const char* key, bool required, std::optional<double>* optional_out = nullptr) {
  auto it = entry.find(key);
  if (it == entry.end() || it->is_null()) {
    if (required) bad_field(origin, where + "." + key, "a number >= 0 (USD per million tokens)");
    return 0;
  }
  if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0) {
    bad_field(origin, where + "." + key, "a number >= 0 (USD per million tokens)");
  }
  if (optional_out) *optional_out = it->get<double>();
  return it->get<double>();
}

}  // namespace

PriceTable PriceTable::load(const std::filesystem::path& path) {
  return parse(read_file(path), path.string());
}

PriceTable PriceTable::parse(const std::string& json_text, const std::string& origin) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::parse_error& e) {
    throw Fatal(kExitUsage, fmt::format("{}: not valid JSON: {}", origin, e.what()));
  }
  if (!j.is_object()) bad_field(origin, "(top level)", "an object with \"retrieved\" and \"models\"");
  PriceTable table;
  table.origin_ = origin;
  auto retrieved = j.find("retrieved");
  if (retrieved == j.end() || !retrieved->is_string() || retrieved->get<std::string>().empty()) {
    bad_field(origin, "retrieved", "the date the prices were taken, as a string (YYYY-MM-DD)");
  }
  table.retrieved_ = retrieved->get<std::string>();
  auto models = j.find("models");
  if (models == j.end() || !models->is_array() || models->empty()) {
    bad_field(origin, "models", "a non-empty array of prices");
  }
  for (size_t i = 0; i < models->size(); ++i) {
    const auto& entry = (*models)[i];
    std::string where = fmt::format("models[{}]", i);
    if (!entry.is_object()) bad_field(origin, where, "an object");
    ModelPrice p;
    auto match = entry.find("match");
    if (match == entry.end() || !match->is_string() || match->get<std::string>().empty() ||
        match->get<std::string>() == "*") {
      bad_field(origin, where + ".match", "a model name or a prefix ending in '*'");
    }
    p.match = lower(match->get<std::string>());
    if (auto provider = entry.find("provider"); provider != entry.end()) {
      if (!provider->is_string()) bad_field(origin, where + ".provider", "a string");
      p.provider = provider->get<std::string>();
    }
    if (auto note = entry.find("note"); note != entry.end()) {
      if (!note->is_string()) bad_field(origin, where + ".note", "a string");
      p.note = note->get<std::string>();
    }
    p.input_per_mtok = price_field(entry, origin, where, "input_per_mtok", true);
    p.output_per_mtok = price_field(entry, origin, where, "output_per_mtok", true);
    price_field(entry, origin, where, "cached_input_per_mtok", false, &p.cached_input_per_mtok);
    price_field(entry, origin, where, "cache_write_per_mtok", false, &p.cache_write_per_mtok);
    for (const auto& earlier : table.entries_) {
      if (earlier.match == p.match) bad_field(origin, where + ".match", "a pattern not listed before (\"" + p.match + "\" is)");
    }
    table.entries_.push_back(std::move(p));
  }
  return table;
}

const ModelPrice* PriceTable::find(const std::string& model) const {
  std::string m = normalise_model(model);
  // OpenRouter spells versions with dots (claude-sonnet-4.5) where the
  // provider uses dashes; OpenAI's own names have dots (gpt-4.1). Try both.
  std::string dashed = m;
  std::replace(dashed.begin(), dashed.end(), '.', '-');
  const ModelPrice* best = nullptr;
  size_t best_length = 0;
  for (const auto& p : entries_) {
    size_t length = std::max(match_length(p.match, m), dashed == m ? 0 : match_length(p.match, dashed));
    if (length > best_length) {
      best = &p;
      best_length = length;
    }
  }
  return best;
}

ModelPrice PriceTable::fallback() const {
  ModelPrice p;
  p.match = "(highest in table)";
  for (const auto& e : entries_) {
    p.input_per_mtok = std::max(p.input_per_mtok, e.input_per_mtok);
    p.output_per_mtok = std::max(p.output_per_mtok, e.output_per_mtok);
    double write = e.cache_write_per_mtok.value_or(e.input_per_mtok);
    p.cache_write_per_mtok = std::max(p.cache_write_per_mtok.value_or(0), write);
  }
  p.cached_input_per_mtok = p.input_per_mtok;  // no discount assumed for an unknown model
  return p;
}

namespace {

double usd(const ModelPrice& p, const LlmUsage& u) {
  int64_t cached = std::max<int64_t>(0, u.cached_input_tokens);
  int64_t written = std::max<int64_t>(0, u.cache_write_tokens);
  int64_t uncached = std::max<int64_t>(0, u.input_tokens - cached - written);
  double per_mtok = uncached * p.input_per_mtok +
                    cached * p.cached_input_per_mtok.value_or(p.input_per_mtok) +
                    written * p.cache_write_per_mtok.value_or(p.input_per_mtok) +
                    std::max<int64_t>(0, u.output_tokens) * p.output_per_mtok;
  return per_mtok / 1e6;
}

}  // namespace

CallCost call_cost(const PriceTable& prices, const std::vector<std::string>& models, bool paid,
                   const LlmUsage& usage) {
  CallCost cost;
  if (!paid) {
    cost.basis = "free endpoint (local address)";
    return cost;
  }
  for (const auto& model : models) {
    if (model.empty()) continue;
    if (const ModelPrice* p = prices.find(model)) {
      cost.usd = usd(*p, usage);
      cost.estimated = usage.estimated;
      cost.basis = fmt::format("price of '{}' in {}{}", p->match, prices.origin(),
                               usage.estimated ? " (tokens estimated)" : "");
      return cost;
    }
  }
  ModelPrice fallback = prices.fallback();
  cost.usd = usd(fallback, usage);
  cost.estimated = true;
  std::string names;
  for (const auto& model : models) {
    if (model.empty() || names.find("'" + model + "'") != std::string::npos) continue;
    names += (names.empty() ? "'" : " / '") + model + "'";
  }
  cost.basis = fmt::format("{} not in {}: estimated at its highest prices (${:g} in, ${:g} out per "
                           "million tokens)",
                           names.empty() ? std::string("the model") : names, prices.origin(),
                           fallback.input_per_mtok, fallback.output_per_mtok);
  return cost;
}

}  // namespace ar
