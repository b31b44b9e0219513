#pragma once
// Tolerant reads of log lines. Lines come from older versions, crashed runs and
// other tools: every field may be missing, null or of another type, and the
// views show "-" instead of throwing.
#include <array>
#include <initializer_list>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace ar::detail {

inline const nlohmann::json* field(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* at = &j;
  for (const char* key : path) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(key);
    if (it == at->end() || it->is_null()) return nullptr;
    at = &*it;
  }
  return at;
}

inline std::optional<double> number(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* v = field(j, path);
  if (v && v->is_number()) return v->get<double>();
  return std::nullopt;
}

inline std::string text(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* v = field(j, path);
  if (!v) return "";
  if (v->is_string()) return v->get<std::string>();
  return v->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

inline std::optional<std::array<double, 2>> interval(const nlohmann::json& j,
                                                     std::initializer_list<const char*> path) {
  const nlohmann::json* v = field(j, path);
  if (!v || !v->is_array() || v->size() != 2 || !(*v)[0].is_number() || !(*v)[1].is_number())
    return std::nullopt;
  return std::array<double, 2>{(*v)[0].get<double>(), (*v)[1].get<double>()};
}

}  // namespace ar::detail
