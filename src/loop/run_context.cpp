#include "run_context.h"

#include <cmath>

#include <fmt/format.h>

#include "autoresearch/util/hash.h"

namespace ar {

std::vector<Workload> RunContext::quick() const {
  std::vector<Workload> out;
  for (const auto* w : manifest.quick_workloads()) out.push_back(*w);
  return out;
}

std::vector<Workload> RunContext::timed() const {
  std::vector<Workload> out;
  for (const auto* w : manifest.timed_workloads()) out.push_back(*w);
  return out;
}

std::vector<Workload> RunContext::all_declared() const { return manifest.workloads; }

std::string RunContext::elapsed_text() {
  long s = std::lround(world.clock->now_seconds() - started_at);
  return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
}

std::string RunContext::status_prefix() {
  return fmt::format("[#{} | best {:.3f}x | kept {} | {}]", last_id, vs_baseline, keeps, elapsed_text());
}

nlohmann::json RunContext::take_phases() {
  PhaseSeconds now = phases.totals();
  double at = world.clock->now_seconds();
  nlohmann::json j = (now - phases_logged).to_json(at - phases_logged_at);
  phases_logged = now;
  phases_logged_at = at;
  return j;
}

std::string editable_source_hash(const Manifest& m, const std::filesystem::path& package_dir) {
  Sha256 h;
  for (const auto& e : m.editable) {
    if (e == m.tunables_file) continue;
    h.update(e + "\n");
    auto p = package_dir / e;
    h.update(std::filesystem::exists(p) ? sha256_file(p) : std::string("absent"));
    h.update("\n");
  }
  return h.hex_digest().substr(0, 16);
}

std::string workloads_hash(const Manifest& m) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& w : m.workloads) j.push_back({w.name, w.params, w.quick, w.timed});
  nlohmann::json tol = nlohmann::json::array();
  for (const auto& t : m.tolerances) tol.push_back({t.output, t.abs, t.rel, t.cosine.value_or(-1)});
  return sha256_hex(j.dump() + tol.dump() + (m.deterministic ? "det" : "nondet")).substr(0, 16);
}

}  // namespace ar
