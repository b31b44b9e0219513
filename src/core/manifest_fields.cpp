#include "manifest_fields.h"

#include <algorithm>

#include <fmt/format.h>

namespace ar::detail {

static std::string type_name(const nlohmann::json& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "a boolean";
  if (j.is_number_integer() || j.is_number_unsigned()) return "an integer";
  if (j.is_number()) return "a number";
  if (j.is_string()) return "a string";
  if (j.is_array()) return "an array";
  return "an object";
}

std::string Fields::at(const std::string& field) const {
  if (path_.empty()) return field;
  if (field.empty()) return path_;
  return path_ + "." + field;
}

void Fields::fail(const std::string& field, const std::string& what) const {
  throw usage_error(fmt::format("{}: {}: {}", file_.string(), at(field), what));
}

const nlohmann::json& Fields::raw(const std::string& key) const {
  if (!has(key)) fail(key, "missing (required)");
  return j_.at(key);
}

Fields Fields::object(const std::string& key) const {
  const auto& v = raw(key);
  if (!v.is_object()) fail(key, "expected an object, got " + type_name(v));
  return Fields(file_, v, at(key));
}

Fields Fields::element(const std::string& key, size_t i) const {
  const auto& v = raw(key);
  return Fields(file_, v.at(i), fmt::format("{}[{}]", at(key), i));
}

std::string Fields::string(const std::string& key) const {
  const auto& v = raw(key);
  if (!v.is_string() || v.get<std::string>().empty())
    fail(key, "expected a non-empty string, got " + type_name(v));
  return v.get<std::string>();
}

std::string Fields::string_or(const std::string& key, const std::string& fallback) const {
  return has(key) ? string(key) : fallback;
}

std::vector<std::string> Fields::strings(const std::string& key, bool required) const {
  if (!has(key)) {
    if (required) fail(key, "missing (required): expected an array of strings");
    return {};
  }
  const auto& v = j_.at(key);
  if (!v.is_array()) fail(key, "expected an array of strings, got " + type_name(v));
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) fail(fmt::format("{}[{}]", key, i), "expected a string, got " + type_name(v[i]));
    out.push_back(v[i].get<std::string>());
  }
  if (required && out.empty()) fail(key, "expected a non-empty array of strings");
  return out;
}

double Fields::number(const std::string& key) const {
  const auto& v = raw(key);
  if (!v.is_number()) fail(key, "expected a number, got " + type_name(v));
  return v.get<double>();
}

double Fields::number_or(const std::string& key, double fallback) const {
  return has(key) ? number(key) : fallback;
}

bool Fields::boolean_or(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  const auto& v = j_.at(key);
  if (!v.is_boolean()) fail(key, "expected true or false, got " + type_name(v));
  return v.get<bool>();
}

size_t Fields::array_size(const std::string& key, bool required) const {
  if (!has(key)) {
    if (required) fail(key, "missing (required): expected an array");
    return 0;
  }
  const auto& v = j_.at(key);
  if (!v.is_array()) fail(key, "expected an array, got " + type_name(v));
  return v.size();
}

void Fields::reject_unknown(const std::vector<std::string>& known) const {
  if (!j_.is_object()) return;
  for (const auto& [k, v] : j_.items()) {
    if (std::find(known.begin(), known.end(), k) == known.end()) {
      std::string list;
      for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
      fail(k, "unknown field (known: " + list + ")");
    }
  }
}

}  // namespace ar::detail
