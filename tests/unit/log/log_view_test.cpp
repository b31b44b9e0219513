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
  std::string table = ar::render_log_table(sample_log(), false, 120);
  auto lines = lines_of(table);
  REQUIRE(lines.size() >= 6);

  // Summary: run id and kernel, then baseline and best.
  CHECK(lines[0].find("run-7") != std::string::npos);
  CHECK(lines[0].find("sparse_mla") != std::string::npos);
  CHECK(lines[1].find("2 workloads") != std::string::npos);
  CHECK(lines[1].find("±0.40%") != std::string::npos);
  CHECK(lines[1].find("result 1.310x vs the start (at keep #1)") != std::string::npos);
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

namespace {

ar::LogContents finished_log() {
  ar::LogContents log;
  log.header = {{"type", "header"}, {"version", 1}, {"run_id", "r"}, {"kernel", "k"}};
  log.lines.push_back({{"type", "aa"}, {"why", "baseline"}, {"after_id", 0}, {"half_width", 0.0031}, {"speedup", 1.0012}});
  log.lines.push_back({{"type", "candidate"}, {"id", 1}, {"decision", "keep"}, {"speedup", 9.3}, {"vs_baseline", 9.367},
                       {"vs_baseline_ci", {9.30, 9.43}}});
  log.lines.push_back({{"type", "aa"}, {"why", "refresh"}, {"after_id", 25}, {"half_width", 0.0029}, {"speedup", 0.9981}});
  log.lines.push_back({{"type", "final"}, {"stop_reason", "goal 2.00x reached"}, {"goal_reached", true}, {"keeps", 1},
                       {"remeasured", true}, {"speedup_vs_baseline", 9.275}, {"ci", {9.2, 9.35}}});
  return log;
}

}  // namespace

// Issue 8: the top said "best 9.367x" and the bottom "final: 9.275x".
TEST_CASE("the log's summary and its final line give the same result, and say how it was measured") {
  auto lines = lines_of(ar::render_log_table(finished_log(), false));
  REQUIRE(lines.size() >= 4);
  CHECK(lines[1].find("result 9.275x (9.200-9.350) vs the start (re-measured at the end)") != std::string::npos);
  CHECK(lines[1].find("9.367") == std::string::npos);
  CHECK(lines.back() ==
        "final: 9.275x (9.200-9.350) vs the start (re-measured at the end): the result, goal reached; "
        "stopped: goal 2.00x reached");
}

TEST_CASE("the log shows the history of the A/A noise, estimates included") {
  std::string table = ar::render_log_table(finished_log(), false);
  CHECK(table.find("noise (A/A half-width, estimate): start ±0.31% (1.0012x), after #25 ±0.29% (0.9981x)") !=
        std::string::npos);
}

TEST_CASE("the log table fits the width it is given") {
  for (size_t width : {80u, 100u, 160u}) {
    std::string table = ar::render_log_table(sample_log(), false, width);
    auto lines = lines_of(table);
    size_t widest = 0;
    for (size_t i = 2; i < lines.size(); ++i) {
      INFO(width << ": " << lines[i]);
      CHECK(columns(lines[i]) <= width);
      widest = std::max(widest, columns(lines[i]));
    }
    // The 300-character reason fills what is there.
    if (width == 160) CHECK(widest > 140);
    // On a narrow screen the build and verify seconds give way first.
    CHECK((table.find("verify") != std::string::npos) == (width > 80));
  }
}

TEST_CASE("log --follow prints the head once and then only the new lines, in the same columns") {
  ar::LogFollower follow(false, 100);
  auto log = sample_log();
  log.lines.resize(2);   // the baseline and candidate #1
  std::string first = follow.update(log);
  auto first_lines = lines_of(first);
  REQUIRE(first_lines.size() == 4);   // two summary lines, the head, #1
  CHECK(first_lines[0].find("run-7") != std::string::npos);
  CHECK(follow.update(log).empty());  // nothing new: nothing printed

  log = sample_log();                 // #2, #3, a candidate without fields, a resume
  log.lines.push_back({{"type", "final"}, {"stop_reason", "plateau"}, {"keeps", 1}, {"remeasured", true},
                       {"speedup_vs_baseline", 1.29}});
  std::string more = follow.update(log);
  CHECK(more.find("run-7") == std::string::npos);       // no second summary
  CHECK(more.find("decision") == std::string::npos);    // no second head
  CHECK(more.find("build_error") != std::string::npos);
  CHECK(more.find("resumed") != std::string::npos);
  CHECK(more.find("final: 1.290x vs the start (re-measured at the end)") != std::string::npos);
  CHECK(more.find("~ screened only") != std::string::npos);
  // Appended rows line up with the head printed before them.
  auto more_lines = lines_of(more);
  const std::string& head = first_lines[2];
  const std::string& row = more_lines[0];
  CHECK(head.find("decision") == row.find("build_error"));
}
