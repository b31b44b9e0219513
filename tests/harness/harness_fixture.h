#pragma once
// Shared by the harness tests: where the built harness and candidates are,
// the package's manifest (tolerances and workloads come from it, so the tests
// judge with exactly what the driver sends), and request builders.
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catch.h"
#include "harness_process.h"

namespace ar::test {

using nlohmann::json;

inline std::string artifact(const std::string& name) {
  return std::string(AR_ARTIFACT_DIR) + "/" + name + ".so";
}

inline const json& manifest() {
  static const json m = [] {
    std::ifstream in(AR_MATMUL_MANIFEST);
    return json::parse(in);
  }();
  return m;
}

inline json tolerances() { return manifest().at("tolerances"); }

inline json workload(const std::string& name) {
  for (const auto& w : manifest().at("workloads"))
    if (w.at("name") == name) return json{{"name", name}, {"params", w.at("params")}};
  FAIL("no workload " << name << " in the manifest");
  return {};
}

inline json shape(const std::string& name, int m, int n, int k, int pad = 0) {
  return json{{"name", name}, {"params", {{"m", m}, {"n", n}, {"k", k}, {"pad", pad}}}};
}

inline json verify_request(const std::string& slot, const json& w, uint64_t seed = 42,
                           bool deterministic = true) {
  return json{{"cmd", "verify"},     {"slot", slot},
              {"workload", w},       {"seed", seed},
              {"tolerances", tolerances()}, {"deterministic", deterministic}};
}

inline json bench_request(const std::vector<std::string>& slots, const json& w) {
  return json{{"cmd", "bench"},       {"slots", slots},     {"workload", w},
              {"seed", 7},            {"cold", false},      {"min_samples", 10},
              {"min_seconds", 0.2},   {"max_seconds", 5.0}, {"max_samples", 100000},
              {"target_rel_ci", 0.005}};
}

// A fresh harness with the given slots loaded (slot -> artifact name).
inline std::unique_ptr<HarnessProcess> start(const std::vector<std::pair<std::string, std::string>>& slots) {
  auto h = std::make_unique<HarnessProcess>(AR_HARNESS_BIN);
  for (const auto& [slot, name] : slots) {
    auto r = h->request({{"cmd", "load"}, {"slot", slot}, {"artifact", artifact(name)}});
    REQUIRE(r);
    INFO(r->dump());
    REQUIRE(r->at("ok") == true);
  }
  return h;
}

inline json reply(HarnessProcess& h, const json& request) {
  auto r = h.request(request);
  REQUIRE(r);
  return *r;
}

inline std::string reason(const json& verify_reply) { return verify_reply.value("reason", ""); }

}  // namespace ar::test
