// `autoresearch report`: the facts read from a log, including odd, partial and
// still-growing logs.
#include "autoresearch/log/report_model.h"

#include <fstream>

#include "catch.h"
#include "report_fixture.h"
#include "unit/fakes/temp_dir.h"

using namespace ar;
using nlohmann::json;

namespace {

const ReportWorkload& workload(const Report& r, const std::string& name) {
  for (const auto& w : r.workloads)
    if (w.name == name) return w;
  FAIL("no workload " << name);
  throw;
}

const ReportWinner& winner(const Report& r, const std::string& name) {
  for (const auto& w : r.winners)
    if (w.workload == name) return w;
  FAIL("no winner for " << name);
  throw;
}

double phase(const Report& r, const std::string& name) {
  for (const auto& p : r.phases)
    if (p.name == name) return p.seconds;
  return -1;
}

json& candidate(LogContents& log, int id) {
  for (json& l : log.lines)
    if (l.value("type", "") == "candidate" && l.value("id", 0) == id) return l;
  throw std::runtime_error("no candidate");
}

}  // namespace

TEST_CASE("report: a finished run gives start -> best, per workload, from the final re-measurement") {
  const Report r = build_report(test::report_log());
  CHECK(r.run_id == "k-1");
  CHECK(r.kernel == "k");
  CHECK(r.agent == "llm (some-model)");
  CHECK(r.device == "Test GPU");
  CHECK(r.finished);
  CHECK_FALSE(r.goal_reached);
  CHECK(r.stop_reason == "plateau: 3 candidates without a keep");
  REQUIRE(r.result.speedup);
  CHECK(*r.result.speedup == Approx(1.26));
  CHECK(r.result.measured == "re-measured at the end");

  REQUIRE(r.workloads.size() == 2);
  CHECK(r.workloads_measured.find("interleaved at the end") != std::string::npos);
  const ReportWorkload& small = workload(r, "small");
  CHECK(*small.start_us == Approx(100));
  CHECK(*small.best_us == Approx(80));
  CHECK(*small.ratio == Approx(1.25));
  REQUIRE(small.ratio_ci);
  CHECK((*small.ratio_ci)[0] == Approx(1.24));
  // Floor max(1e9 / 1e14, 1e7 / 1e12) s = 10 µs.
  REQUIRE(small.best_at);
  CHECK(small.best_at->pct_of_roofline == Approx(12.5));
  CHECK(small.start_at->pct_of_roofline == Approx(10));
  CHECK(small.best_at->tflops == Approx(12.5));
  const ReportWorkload& big = workload(r, "big");
  CHECK(*big.best_us == Approx(790));
  CHECK(*big.ratio == Approx(1.27));   // the paired estimate, not 1000 / 790
  CHECK(big.best_at->bound == "memory");
  CHECK(big.best_at->pct_of_roofline == Approx(200.0 / 790 * 100));
  CHECK(big.best_at->gbps == Approx(2e8 / 790e-6 / 1e9));
}

TEST_CASE("report: decisions in the enum's order, the keep rate, tokens and cost") {
  const Report r = build_report(test::report_log());
  REQUIRE(r.steps.size() == 4);
  CHECK(r.keeps == 1);
  REQUIRE(r.decisions.size() == 4);
  CHECK(r.decisions[0].name == "keep");
  CHECK(r.decisions[1].name == "discard");
  CHECK(r.decisions[2].name == "build_error");
  CHECK(r.decisions[3].name == "wrong");
  for (const auto& d : r.decisions) CHECK(d.count == 1);
  CHECK(r.tokens_in == 1500);
  CHECK(r.tokens_out == 300);
  CHECK(r.cost_usd == Approx(0.75));
  CHECK(r.cost_estimated);
}

TEST_CASE("report: the best so far after each candidate, against its number and its time") {
  const Report r = build_report(test::report_log());
  CHECK(r.steps[0].keep);
  CHECK(*r.steps[0].estimate == Approx(1.25));
  CHECK(r.steps[0].best == Approx(1.25));
  CHECK(*r.steps[0].seconds == Approx(60));
  // A discard's own estimate is vs its incumbent, so x the incumbent's 1.25.
  CHECK(*r.steps[1].estimate == Approx(0.95 * 1.25));
  CHECK(r.steps[1].best == Approx(1.25));
  CHECK(*r.steps[1].seconds == Approx(90));
  CHECK_FALSE(r.steps[2].estimate);   // wrong: never measured
  CHECK(r.steps[3].best == Approx(1.25));
}

TEST_CASE("report: wall time by phase from the candidates' timing fields, the rest named, the unrecorded said") {
  const Report r = build_report(test::report_log());
  CHECK(r.wall_seconds == Approx(180));
  CHECK(phase(r, "agent") == Approx(5));       // the calls' seconds
  CHECK(phase(r, "build") == Approx(8.5));
  CHECK(phase(r, "guard") == Approx(0.5));
  CHECK(phase(r, "verify") == Approx(3));
  CHECK(phase(r, "screen") == Approx(1));
  CHECK(phase(r, "measure") == Approx(2));
  CHECK(phase(r, "confirm") == Approx(2));
  CHECK(phase(r, "aa") == Approx(3));
  CHECK(phase(r, "start") == Approx(2));
  CHECK(phase(r, "unattributed") == Approx(180 - 27));
  CHECK(r.phases.front().name == "agent");
  CHECK(r.phases.back().name == "unattributed");
  CHECK(r.phases_missing == std::vector<std::string>{"sanitizer"});
}

TEST_CASE("report: per-phase objects on candidate lines are summed, and a final line's replace them") {
  LogContents log = test::report_log();
  candidate(log, 1)["phases"] = {{"agent", 10.0}, {"build", 5.0}, {"sanitizer", 7.0}};
  candidate(log, 2)["phases"] = {{"agent", 4.0}, {"git", 1.0}};
  Report r = build_report(log);
  CHECK(phase(r, "agent") == Approx(10 + 4));   // candidates 3 and 4 record no agent time
  CHECK(phase(r, "sanitizer") == Approx(7));
  CHECK(phase(r, "git") == Approx(1));
  CHECK(r.phases_note.find("per-phase breakdown") != std::string::npos);
  CHECK(std::find(r.phases_missing.begin(), r.phases_missing.end(), "sanitizer") == r.phases_missing.end());

  log.lines.back()["phases"] = {{"agent", 100.0}, {"measure", 50.0}};
  r = build_report(log);
  CHECK(phase(r, "agent") == Approx(100));
  CHECK(phase(r, "measure") == Approx(50));
  CHECK(phase(r, "build") == -1);
  CHECK(phase(r, "unattributed") == Approx(30));
  CHECK(r.phases_note.find("final lines") != std::string::npos);
}

TEST_CASE("report: phases that ran at once are said to overlap, not squeezed into the wall time") {
  LogContents log = test::report_log();
  log.lines.back()["session"]["seconds"] = 20.0;   // less than the 27 s the phases add up to
  const Report r = build_report(log);
  CHECK(phase(r, "unattributed") == -1);
  CHECK(r.phases_note.find("add up to 135% of the wall time") != std::string::npos);
}

TEST_CASE("report: per-workload winners count only verified candidates, chained through the keeps") {
  const Report r = build_report(test::report_log());
  REQUIRE(r.winners.size() == 2);
  CHECK(r.winners[0].workload == "small");   // the baseline's order
  const ReportWinner& small = winner(r, "small");
  CHECK(small.candidate == 2);               // 1.1x the keep on small: 1.375x the start
  CHECK(small.idea == "SPLIT 1→2");
  CHECK(*small.speedup == Approx(1.1 * 1.25));
  CHECK(*small.best == Approx(1.25));
  CHECK(*small.us == Approx(80));
  CHECK(small.measured == "screen");
  const ReportWinner& big = winner(r, "big");
  CHECK(big.candidate == 1);                 // the best holds: candidate 2 was slower there
  CHECK(*big.speedup == Approx(1.25));
  CHECK(big.measured == "full");
}

TEST_CASE("report: a winner needs more than the keep rule's minimum gain over the best") {
  LogContents log = test::report_log();
  // 1.005x the keep on small: inside the 1% minimum gain, so the best keeps it.
  candidate(log, 2)["screen"]["workloads"][0] = test::row("small", 80.0, 80.4);
  Report r = build_report(log);
  CHECK(winner(r, "small").candidate == 1);
  log.header["keep_rule"]["min_gain"] = 0.001;
  r = build_report(log);
  CHECK(winner(r, "small").candidate == 2);
}

TEST_CASE("report: a run still in progress reads from its keeps, with a note and no final result") {
  const Report r = build_report(test::report_log_in_progress());
  CHECK_FALSE(r.finished);
  REQUIRE_FALSE(r.notes.empty());
  CHECK(r.notes.back().find("no final line") != std::string::npos);
  REQUIRE(r.result.speedup);
  CHECK(*r.result.speedup == Approx(1.25));
  CHECK(r.result.measured == "at keep #1");
  CHECK(r.workloads_measured.find("separate measurements") != std::string::npos);
  const ReportWorkload& big = workload(r, "big");
  CHECK(*big.start_us == Approx(1000));   // the baseline's
  CHECK(*big.best_us == Approx(800));     // the keep's full measurement
  CHECK(*big.ratio == Approx(1.25));
  CHECK_FALSE(big.ratio_ci);
  CHECK(r.wall_seconds == Approx(150));   // header start to the last line's time
  CHECK(r.best_commit == "c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1");

  // Its lock held: still going, not killed.
  Report live = r;
  mark_running(live, "run k-1 (pid 42)");
  CHECK(live.running);
  REQUIRE(live.notes.size() == 1);
  CHECK(live.notes[0] == "the run is still going (run k-1 (pid 42)): this is how it stands now");
}

TEST_CASE("report: the commands that reproduce the best, or the start when nothing was kept") {
  Report r = build_report(test::report_log());
  REQUIRE(r.reproduce.size() == 3);
  CHECK(r.reproduce[0] == "git worktree add ../k-1-best c1c1c1c1c1c1");
  CHECK(r.reproduce[1] == "cd ../k-1-best && autoresearch bench --kernel k");
  CHECK(r.reproduce[2].rfind("autoresearch adopt k-1", 0) == 0);
  CHECK(r.best_candidate == 1);

  LogContents log = test::report_log();
  candidate(log, 1)["decision"] = "discard";
  candidate(log, 1).erase("commit");
  log.lines.back()["keeps"] = 0;
  r = build_report(log);
  CHECK(r.keeps == 0);
  CHECK(r.best_commit.empty());
  CHECK(*r.result.speedup == 1.0);
  CHECK(r.result.measured == "nothing kept");
  REQUIRE(r.reproduce.size() == 2);
  CHECK(r.reproduce[0] == "git worktree add ../k-1-start aaaaaaaaaaaa");
  // Candidate 1 is still the fastest verified one on both workloads; the best is the start.
  CHECK(winner(r, "small").candidate == 1);
  CHECK(*winner(r, "small").best == Approx(1.0));
}

TEST_CASE("report: odd lines (wrong types, missing fields, not objects) are left out, never thrown") {
  LogContents log;
  log.header = {{"type", "header"}, {"version", 1}, {"run_id", 7}, {"kernel", nullptr},
                {"roofline", "fast"}, {"goal", "2x"}, {"agent", {1, 2}}, {"started", "yesterday"}};
  log.lines = {json(42),
               json::array({1, 2}),
               {{"type", "baseline"}, {"bench", {{"workloads", "none"}}}},
               {{"type", "baseline"}, {"bench", {{"workloads", {json(1), {{"name", 3}}, {{"median_us", "x"}}}}}}},
               {{"type", "candidate"}},   // no id, no decision
               {{"type", "candidate"}, {"id", "two"}, {"decision", "keep"}, {"vs_baseline", "big"},
                {"bench", {{"workloads", {{{"name", "w"}, {"median_us", -1}, {"ratio", "x"}}}}}},
                {"phases", {{"agent", "long"}, {"build", {{"seconds", 2.0}}}}}, {"tokens", "many"},
                {"calls", "none"}},
               {{"type", "candidate"}, {"id", 3}, {"decision", "teleported"}, {"finished", 5}},
               {{"type", "final"}, {"workloads", {{{"workload", nullptr}}}}, {"session", "long"}},
               {{"type", "mystery"}}};
  Report r;
  REQUIRE_NOTHROW(r = build_report(log));
  CHECK(r.run_id == "7");
  CHECK(r.goal == 0);
  CHECK(r.steps.size() == 3);
  CHECK(r.steps[0].decision == "error");   // a candidate line without a decision
  CHECK(r.keeps == 1);
  CHECK(r.decisions.back().name == "teleported");   // unknown spellings after the known ones
  CHECK(phase(r, "build") == Approx(2));
  CHECK(r.tokens_in == 0);
  for (auto* render : {&render_report_markdown, &render_report_csv, &render_report_html})
    CHECK_NOTHROW((*render)(r));
  CHECK_NOTHROW(render_report_text(r, 80));
  CHECK_NOTHROW(render_report_json(r).dump());
}

TEST_CASE("report: a header-only log, and a log torn by a crash, read from the file") {
  TempDir dir;
  const auto file = dir / "experiments.jsonl";
  {
    std::ofstream out(file);
    out << test::report_header().dump() << "\n";
  }
  Report r = build_report(read_log(file));
  CHECK(r.steps.empty());
  CHECK(r.workloads.empty());
  CHECK(r.winners.empty());
  CHECK_FALSE(r.result.speedup);
  CHECK_FALSE(r.finished);
  CHECK_NOTHROW(render_report_html(r));

  {
    std::ofstream out(file);
    out << test::report_header().dump() << "\n";
    const auto lines = test::report_lines();
    for (size_t i = 0; i + 1 < lines.size(); ++i) out << lines[i].dump() << "\n";
    out << lines.back().dump().substr(0, 40);   // the final line, cut mid-write
  }
  r = build_report(read_log(file));
  CHECK(r.steps.size() == 4);
  CHECK_FALSE(r.finished);
  bool torn = false;
  for (const auto& n : r.notes) torn = torn || n.find("torn") != std::string::npos;
  CHECK(torn);
}
