// `autoresearch runs`: states from logs and locks, the result, the table.
#include "autoresearch/log/run_list.h"

#include <fstream>

#include "autoresearch/util/file_lock.h"
#include "catch.h"
#include "unit/fakes/temp_dir.h"

using namespace ar;
using nlohmann::json;

namespace {

void write_run(const std::filesystem::path& dir, const std::vector<json>& lines, const std::string& started) {
  std::filesystem::create_directories(dir);
  std::ofstream out(dir / kLogFileName);
  out << json{{"type", "header"}, {"version", 1}, {"run_id", dir.filename().string()}, {"kernel", "k"},
              {"branch", "autoresearch/" + dir.filename().string()}, {"base_commit", "abc"},
              {"package", "kernels/k"}, {"started", started}}
             .dump()
      << "\n";
  for (const json& l : lines) out << l.dump() << "\n";
}

json keep(int id, double vs) { return {{"type", "candidate"}, {"id", id}, {"decision", "keep"}, {"vs_baseline", vs}}; }
json discard(int id) { return {{"type", "candidate"}, {"id", id}, {"decision", "discard"}}; }
json final_line(const std::string& outcome, const std::string& why, double x, bool remeasured = true) {
  return {{"type", "final"}, {"outcome", outcome}, {"stop_reason", why}, {"speedup_vs_baseline", x},
          {"remeasured", remeasured}, {"keeps", 1}, {"goal_reached", outcome == "goal_reached"}};
}

}  // namespace

TEST_CASE("runs: each run's state comes from its final line, its lock, or their absence") {
  TempDir dir;
  auto runs = dir / "runs";
  write_run(runs / "k-done", {keep(1, 1.4), discard(2), final_line("goal_reached", "goal 1.30x reached", 1.38)},
            "2026-11-30T10:00:00Z");
  write_run(runs / "k-int", {keep(1, 1.2), final_line("interrupted", "interrupted by a signal", 1.2, false)},
            "2026-11-30T11:00:00Z");
  write_run(runs / "k-fail", {final_line("failed", "3 infrastructure failures in a row", 1, false)},
            "2026-11-30T12:00:00Z");
  write_run(runs / "k-killed", {keep(1, 1.1), discard(2)}, "2026-11-30T13:00:00Z");
  // Resumed after its final line: the old final no longer describes it.
  write_run(runs / "k-resumed", {keep(1, 1.1), final_line("stopped", "--max-iters 1 reached", 1.1),
                                 json{{"type", "resume"}, {"after_id", 1}}, discard(2)},
            "2026-11-30T14:00:00Z");
  write_run(runs / "k-live", {discard(1)}, "2026-11-30T15:00:00Z");
  std::filesystem::create_directories(runs / "never-started");   // no log: not a run
  std::string holder;
  auto lock = FileLock::try_acquire(runs / "k-live" / "lock", "run k-live", &holder);
  REQUIRE(lock);

  auto list = list_runs(runs);
  REQUIRE(list.size() == 6);
  std::map<std::string, RunSummary> by_id;
  for (const auto& r : list) by_id[r.id] = r;
  CHECK(list.front().id == "k-done");   // oldest first
  CHECK(by_id["k-done"].state == RunState::Finished);
  CHECK(by_id["k-done"].goal_reached);
  CHECK(by_id["k-done"].candidates == 2);
  CHECK(by_id["k-done"].keeps == 1);
  CHECK(by_id["k-done"].result.speedup == Approx(1.38));   // re-measured at the end, not the keep's 1.4
  CHECK(by_id["k-done"].result.measured == "re-measured at the end");
  CHECK(by_id["k-int"].state == RunState::Interrupted);
  CHECK(by_id["k-int"].result.measured == "at keep #1");
  CHECK(by_id["k-fail"].state == RunState::Failed);
  CHECK(by_id["k-killed"].state == RunState::Interrupted);
  CHECK(by_id["k-killed"].detail.find("killed") != std::string::npos);
  CHECK(by_id["k-resumed"].state == RunState::Interrupted);
  CHECK(by_id["k-live"].state == RunState::Running);
  CHECK(by_id["k-live"].detail.find("run k-live") != std::string::npos);
  lock.reset();
  CHECK(summarize_run(runs / "k-live").state == RunState::Interrupted);
}

TEST_CASE("runs: final lines from before \"outcome\" existed are read from their stop reason") {
  TempDir dir;
  json old_final = {{"type", "final"}, {"stop_reason", "3 infrastructure failures in a row (GPU, harness, disk or git)"}};
  write_run(dir / "a", {old_final}, "2026-11-30T10:00:00Z");
  CHECK(summarize_run(dir / "a").state == RunState::Failed);
  old_final["stop_reason"] = "interrupted by a signal";
  write_run(dir / "b", {old_final}, "2026-11-30T10:00:00Z");
  CHECK(summarize_run(dir / "b").state == RunState::Interrupted);
  old_final["stop_reason"] = "plateau: 60 candidates without a keep";
  write_run(dir / "c", {old_final}, "2026-11-30T10:00:00Z");
  CHECK(summarize_run(dir / "c").state == RunState::Finished);
}

TEST_CASE("runs: an unreadable log is listed as such, not thrown") {
  TempDir dir;
  std::filesystem::create_directories(dir / "runs" / "bad");
  std::ofstream(dir / "runs" / "bad" / kLogFileName) << "not json\n";
  auto list = list_runs(dir / "runs");
  REQUIRE(list.size() == 1);
  CHECK(list[0].state == RunState::Unreadable);
  CHECK(!list[0].detail.empty());
}

TEST_CASE("runs: the table has a row per run and fits the width; the JSON has every field") {
  TempDir dir;
  write_run(dir / "runs" / "matmul_cpu-20261130-152420", {keep(4, 5.883), final_line("goal_reached", "goal", 5.759)},
            "2026-11-30T15:24:20Z");
  auto list = list_runs(dir / "runs");
  std::string table = render_run_list(list, 140);
  CHECK(table.find("run") == 0);
  CHECK(table.find("kernel") != std::string::npos);
  CHECK(table.find("matmul_cpu-20261130-152420") != std::string::npos);
  CHECK(table.find("finished") != std::string::npos);
  CHECK(table.find("5.759x") != std::string::npos);
  CHECK(table.find("11-30 15:24") != std::string::npos);
  CHECK(table.find("autoresearch/matmul_cpu-20261130-152420") != std::string::npos);
  // Narrower: the kernel column goes, then the branch is cut; nothing wraps.
  for (size_t width : {80u, 100u}) {
    std::string narrow = render_run_list(list, width);
    size_t start = 0;
    while (start < narrow.size()) {
      size_t end = narrow.find('\n', start);
      std::string line = narrow.substr(start, end - start);
      INFO(line);
      size_t cols = 0;
      for (unsigned char c : line) cols += (c & 0xC0) != 0x80;
      CHECK(cols <= width);
      start = end + 1;
    }
    CHECK(narrow.find("5.759x") != std::string::npos);
  }
  json j = to_json(list[0]);
  for (const char* key : {"id", "kernel", "state", "best_vs_start", "candidates", "keeps", "started", "branch"})
    CHECK(j.contains(key));
  CHECK(j["state"] == "finished");
  CHECK(j["best_vs_start"] == 5.759);
}
