#include "autoresearch/core/config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "autoresearch/util/errors.h"

namespace ar {

namespace {

template <class T>
void assign(T& field, const nlohmann::json& v, const std::string& where) {
  try {
    if constexpr (std::is_same_v<T, bool>) {
      if (!v.is_boolean()) throw std::invalid_argument("expected true or false");
      field = v.get<bool>();
    } else if constexpr (std::is_integral_v<T>) {
      if (!v.is_number_integer()) throw std::invalid_argument("expected an integer");
      // Out of the field's range is refused, never wrapped or clamped.
      if ((v.is_number_unsigned() && v.get<unsigned long long>() > static_cast<unsigned long long>(std::numeric_limits<T>::max())) ||
          (!v.is_number_unsigned() && (v.get<long long>() < static_cast<long long>(std::numeric_limits<T>::min()) ||
                                       v.get<long long>() > static_cast<long long>(std::numeric_limits<T>::max()))))
        throw std::invalid_argument("out of range");
      field = v.get<T>();
    } else if constexpr (std::is_floating_point_v<T>) {
      if (!v.is_number()) throw std::invalid_argument("expected a number");
      field = v.get<T>();
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      // A list, or one string (an environment variable, a single flag).
      if (v.is_string()) {
        field = {v.get<std::string>()};
      } else {
        if (!v.is_array()) throw std::invalid_argument("expected a list of strings");
        std::vector<std::string> out;
        for (const auto& x : v) {
          if (!x.is_string()) throw std::invalid_argument("expected a list of strings");
          out.push_back(x.get<std::string>());
        }
        field = std::move(out);
      }
    } else {
      if (!v.is_string()) throw std::invalid_argument("expected a string");
      field = v.get<std::string>();
    }
  } catch (const std::exception& e) {
    throw usage_error(fmt::format("{}: {} (got {})", where, e.what(), v.dump()));
  }
}

template <class T>
void assign_text(T& field, const std::string& text, const std::string& where) {
  nlohmann::json v;
  if constexpr (std::is_same_v<T, std::string>) {
    v = text;
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    // AUTORESEARCH_IDEA="a|b": a list in one variable.
    v = nlohmann::json::array();
    size_t start = 0;
    while (start <= text.size()) {
      size_t bar = text.find('|', start);
      if (bar == std::string::npos) bar = text.size();
      if (bar > start) v.push_back(text.substr(start, bar - start));
      start = bar + 1;
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    if (text == "1" || text == "true" || text == "yes") v = true;
    else if (text == "0" || text == "false" || text == "no") v = false;
    else throw usage_error(fmt::format("{}: expected true or false, got '{}'", where, text));
  } else {
    try {
      size_t used = 0;
      if constexpr (std::is_integral_v<T>) v = std::stoll(text, &used);
      else v = std::stod(text, &used);
      if (used != text.size()) throw std::invalid_argument("trailing characters");
    } catch (const std::exception&) {
      throw usage_error(fmt::format("{}: expected a number, got '{}'", where, text));
    }
  }
  assign(field, v, where);
}

std::string env_name(const std::string& key) {
  std::string out = "AUTORESEARCH_";
  for (char c : key) out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

void apply_json(RunConfig& c, const nlohmann::json& j, const std::string& origin) {
  if (!j.is_object()) throw usage_error(origin + ": expected a JSON object of options");
  std::vector<std::string> known;
  c.visit([&](const char* name, auto&, const char*) { known.push_back(name); });
  for (const auto& [k, v] : j.items()) {
    if (k.rfind("_comment", 0) == 0) continue;  // configs may carry notes
    if (std::find(known.begin(), known.end(), k) == known.end())
      throw usage_error(fmt::format("{}: unknown option '{}'", origin, k));
  }
  c.visit([&](const char* name, auto& field, const char*) {
    if (j.contains(name)) assign(field, j.at(name), origin + ": " + name);
  });
}

void apply_environment(RunConfig& c) {
  c.visit([&](const char* name, auto& field, const char*) {
    std::string var = env_name(name);
    if (const char* value = std::getenv(var.c_str())) assign_text(field, value, var);
  });
}

nlohmann::json to_json(RunConfig& c) {
  nlohmann::json j = nlohmann::json::object();
  c.visit([&](const char* name, auto& field, const char*) { j[name] = field; });
  return j;
}

double parse_goal(const std::string& text) {
  std::string t = text;
  if (!t.empty() && (t.back() == 'x' || t.back() == 'X')) t.pop_back();
  double g = 0;
  try {
    size_t used = 0;
    g = std::stod(t, &used);
    if (used != t.size() || !std::isfinite(g)) g = 0;
  } catch (const std::exception&) {
    g = 0;
  }
  if (g == 0) throw usage_error(fmt::format("--goal: '{}' is not a speedup (expected e.g. 2x or 1.5)", text));
  // 1x is the start itself: every run would "reach" it with its first keep.
  if (g <= 1.0)
    throw usage_error(fmt::format("--goal: {} must be above 1x: it is the speedup over the start to reach "
                                  "(e.g. 2x or 1.1x)", text));
  return g;
}

}  // namespace ar
