#pragma once
// Shared by the agents tests: manifests built in code, and scratch folders.
#include <atomic>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "autoresearch/core/manifest.h"
#include "catch.h"

namespace ar::test {

inline Expression parse_expr(const std::string& text) {
  std::string error;
  std::optional<Expression> e = Expression::parse(text, &error);
  INFO(text << ": " << error);
  REQUIRE(e.has_value());
  return *e;
}

// 4 x 3 x 4 = 48 points, of which TILE * VEC <= 128 leaves 39.
inline Manifest toy_manifest() {
  Manifest m;
  m.name = "toy";
  m.tunables = {{"TILE", {8, 16, 32, 64}, 16, ""},
                {"UNROLL", {1, 2, 4}, 1, ""},
                {"VEC", {1, 2, 4, 8}, 1, ""}};
  m.constraints.push_back(parse_expr("TILE * VEC <= 128"));
  return m;
}

inline Tunables defaults_of(const Manifest& m) {
  Tunables t;
  for (const Tunable& tunable : m.tunables) t[tunable.name] = tunable.default_value;
  return t;
}

// A fresh folder per call under the system temp dir, removed by the destructor.
class ScratchDir {
 public:
  ScratchDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("ar_agents_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace ar::test
