#include "autoresearch/log/log_view.h"

#include <sstream>

#include "catch.h"

using nlohmann::json;

namespace {

ar::LogContents sample_log() {
  ar::LogContents log;
  log.header = {{"type", "header"}, {"version", 1}, {"run_id", "run-7"},
                {"kernel", "sparse_mla"}, {"started", "2026-11-30T14:00:00Z"}};
  log.lines.push_back({{"type", "baseline"},
                       {"bench", {{"workloads", json::array({{{"name", "a"}, {"median_us", 10}},
                                                             {{"name", "b"}, {"median_us", 20}}})}}},
                       {"aa", {{"half_width", 0.004}}}});
  log.lines.push_back({{"type", "candidate"}, {"id", 1}, {"finished", "2026-11-30T14:42:44Z"},
                       {"agent", "tune"}, {"idea", "TILE_M 16→64"},
                       {"build", {{"ok", true}, {"seconds", 3.1}}},
                       {"verify", {{"ok", true}, {"seconds", 2.0}}},
                       {"speedup", 1.08}, {"speedup_ci", {1.06, 1.10}}, {"vs_baseline", 1.31},
                       {"decision", "keep"}, {"reason", "clears 2x the A/A spread"},
                       {"commit", "abc123"}});
  // Failed to build: no bench, no verify, nulls where numbers would be.
  log.lines.push_back({{"type", "candidate"}, {"id", 2}, {"agent", "tune"},
                       {"tunables", {{"BLOCK_M", 128}, {"STAGES", 4}}},
                       {"build", {{"ok", false}, {"seconds", nullptr}, {"errors", "boom"}}},
                       {"speedup", nullptr}, {"decision", "build_error"},
                       {"reason", std::string(300, 'x') + "\nsecond line"}});
  // Screened out: only the quick figure.
  log.lines.push_back({{"type", "candidate"}, {"id", 3}, {"decision", "discard"},
                       {"screen", {{"speedup", 0.97}, {"ci", {0.95, 0.99}}}}});
  // Almost nothing at all.
  log.lines.push_back({{"type", "candidate"}});
  log.lines.push_back({{"type", "resume"}, {"time", "2026-11-30T15:00:00Z"}});
  return log;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

size_t columns(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

TEST_CASE("the log table shows every candidate, missing fields as dashes") {
  std::string table = ar::render_log_table(sample_log(), false);
  auto lines = lines_of(table);
  REQUIRE(lines.size() >= 6);

  // Summary: run id and kernel, then baseline and best.
  CHECK(lines[0].find("run-7") != std::string::npos);
  CHECK(lines[0].find("sparse_mla") != std::string::npos);
  CHECK(lines[1].find("2 workloads") != std::string::npos);
  CHECK(lines[1].find("±0.40%") != std::string::npos);
  CHECK(lines[1].find("best 1.310x vs baseline (#1)") != std::string::npos);
  CHECK(lines[1].find("4 candidates, 1 kept") != std::string::npos);

  CHECK(table.find("1.080x (1.060-1.100)") != std::string::npos);
  CHECK(table.find("TILE_M 16→64") != std::string::npos);
  CHECK(table.find("BLOCK_M=128 STAGES=4") != std::string::npos);  // the tuner's idea
  CHECK(table.find("build_error") != std::string::npos);
  CHECK(table.find("~0.970x") != std::string::npos);
  CHECK(table.find("second line") == std::string::npos);  // truncated, one row per candidate
  CHECK(table.find("resume") == std::string::npos);        // candidates only
  CHECK(table.find('\x1b') == std::string::npos);

  for (const auto& line : lines) CHECK(columns(line) <= 120);
}

TEST_CASE("the log table colours decisions only when asked") {
  std::string table = ar::render_log_table(sample_log(), true);
  CHECK(table.find("\x1b[1;32mkeep") != std::string::npos);
  CHECK(table.find("\x1b[0m") != std::string::npos);
}

TEST_CASE("the log table shows the final line and copes with an empty log") {
  ar::LogContents log;
  log.header = {{"type", "header"}, {"version", 1}};
  CHECK(ar::render_log_table(log, false).find("no candidates") != std::string::npos);

  log.lines.push_back({{"type", "final"}, {"stop_reason", "goal"}, {"goal_reached", true},
                       {"speedup_vs_baseline", 2.05}, {"ci", {2.0, 2.1}}});
  log.torn_tail = true;
  std::string table = ar::render_log_table(log, false);
  CHECK(table.find("2.050x (2.000-2.100)") != std::string::npos);
  CHECK(table.find("goal reached") != std::string::npos);
  CHECK(table.find("torn") != std::string::npos);
}

TEST_CASE("the JSON view carries the header and the lines as logged") {
  auto log = sample_log();
  json j = ar::render_log_json(log);
  CHECK(j["header"] == log.header);
  REQUIRE(j["experiments"].size() == log.lines.size());
  CHECK(j["experiments"][1] == log.lines[1]);
  CHECK_FALSE(j.contains("torn_tail"));
}
