#pragma once
// A measured tunable space (docs/spaces.md): every feasible configuration of a
// package with its measured quick-geomean time, or the decision that ended it
// (a build error, a wrong result). `autoresearch space` writes one; `simulate`
// replays it as the oracle, so search strategies are compared without a GPU.
//
// The file is JSON lines: a header ({"type": "space", ...}: the tunables, their
// declared values and defaults, the constraints, where and how it was measured),
// then one line per configuration. A JSON document {"space": header, "points":
// [...]} is read too.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autoresearch/agents/agent.h"
#include "autoresearch/core/decision.h"
#include "autoresearch/core/manifest.h"

namespace ar {

inline constexpr int kSpaceFormatVersion = 1;

struct SpacePoint {
  Tunables tunables;
  // The comparable time (µs): the geomean over the quick workloads, each
  // workload's time being the reference's median times this configuration's
  // interleaved ratio to it. Absent when the configuration failed.
  std::optional<double> time_us;
  Decision decision = Decision::Discard;   // a failure's decision when there is no time
  std::string reason;
  nlohmann::json detail = nlohmann::json::object();   // anything else on the line (kept when rewritten)
};

struct MeasuredSpace {
  nlohmann::json header;   // as read; "tunables" and "constraints" define the space
  Manifest manifest;       // name, tunables and constraints only: what the Tuner searches
  std::vector<SpacePoint> points;

  const SpacePoint* find(const Tunables& t) const;
  Tunables start() const { return manifest.default_tunables(); }
  // The fastest measured time, and how many configurations are within
  // `target` of it (time <= best * (1 + target)).
  double best_time_us() const;
  size_t within(double target) const;
  size_t failures() const;

  std::map<std::string, size_t> index;   // canonical tunables -> points[i]
};

// Reads and validates a space; a usage error names the file, the line (or the
// field) and what is wrong. The file must hold every feasible configuration of
// the space it declares exactly once, and the declared start (the defaults)
// must have a time: a simulated run starts there, as a real one does.
MeasuredSpace load_measured_space(const std::filesystem::path& file);
MeasuredSpace parse_measured_space(const std::string& text, const std::string& origin);

// The header's space part from a manifest's tunables and constraints (the
// writer adds where, when and how it measured).
nlohmann::json space_header(const Manifest& m);
nlohmann::json to_json(const SpacePoint& p);
// The whole file: the header line, then the points, one line each.
std::string space_file_text(const nlohmann::json& header, const std::vector<SpacePoint>& points);

}  // namespace ar
