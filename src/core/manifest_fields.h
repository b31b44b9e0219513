#pragma once
// Reads JSON fields with errors that name the file, the field path and what was
// expected: "kernels/x/manifest.json: tunables[2].values: expected a non-empty
// array of integers". Private to the manifest parser.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autoresearch/util/errors.h"

namespace ar::detail {

class Fields {
 public:
  Fields(std::filesystem::path file, const nlohmann::json& j, std::string path = "")
      : file_(std::move(file)), j_(j), path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const;
  std::string at(const std::string& field) const;  // "tunables[2].values"

  bool has(const std::string& key) const { return j_.is_object() && j_.contains(key); }
  Fields object(const std::string& key) const;                 // required object
  Fields element(const std::string& key, size_t i) const;      // key[i]
  const nlohmann::json& raw(const std::string& key) const;     // required, any type
  std::string string(const std::string& key) const;            // required
  std::string string_or(const std::string& key, const std::string& fallback) const;
  std::vector<std::string> strings(const std::string& key, bool required) const;
  double number(const std::string& key) const;
  double number_or(const std::string& key, double fallback) const;
  bool boolean_or(const std::string& key, bool fallback) const;
  size_t array_size(const std::string& key, bool required) const;
  const nlohmann::json& json() const { return j_; }
  const std::filesystem::path& file() const { return file_; }
  // Keys not in `known` are errors: a typo ("tunabels") must not be ignored.
  void reject_unknown(const std::vector<std::string>& known) const;

 private:
  std::filesystem::path file_;
  const nlohmann::json& j_;
  std::string path_;
};

}  // namespace ar::detail
