// `autoresearch report`: each format says the same facts; the HTML page is
// self-contained and every string from the log is escaped in it.
#include <regex>

#include "autoresearch/log/report_model.h"
#include "catch.h"
#include "report_fixture.h"

using namespace ar;
using nlohmann::json;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

// The log an agent wrote its worst into: markup, quotes, a pipe, a comma, a bad byte.
LogContents hostile_log() {
  LogContents log = test::report_log();
  for (json& l : log.lines) {
    if (l.value("type", "") == "candidate" && l.value("id", 0) == 2) l["idea"] = "<script>alert(1)</script> \xff";
    if (l.value("type", "") == "final") l["stop_reason"] = "plateau \"&\" <b>done</b>";
  }
  log.header["run_id"] = "k-1<img src=x onerror=alert(1)>";
  log.header["device"]["name"] = "GPU | \"fast\", really";
  return log;
}

}  // namespace

TEST_CASE("report text: the summary a user reads in the terminal") {
  const std::string t = render_report_text(build_report(test::report_log()), 100);
  CHECK(has(t, "run k-1 · kernel k"));
  CHECK(has(t, "result: 1.260x vs the start [95% CI 1.250–1.270] (re-measured at the end)"));
  CHECK(has(t, "goal 2.00x not reached; stopped: plateau: 3 candidates without a keep"));
  CHECK(has(t, "| small    |   100.00 |   80.00 |  1.250x | 1.240–1.260 |"));
  CHECK(has(t, "10.0% compute → 12.5% compute"));
  CHECK(has(t, "memory"));
  CHECK(has(t, "4 candidates, 1 kept (25.0%)"));
  CHECK(has(t, "on 1 of 2 workloads another verified candidate beat the best (up to 1.100x its speed, on small)"));
  CHECK(has(t, "candidate #2"));
  CHECK(has(t, "wall time 3m 00s"));
  CHECK(has(t, "no time in this log for: sanitizer (its lines do not record it, or no candidate got that far)"));
  CHECK(has(t, "tokens 1,500 in, 300 out; cost $0.75 (estimated"));
  CHECK(has(t, "  git worktree add ../k-1-best c1c1c1c1c1c1\n"));
  CHECK(has(t, "  cd ../k-1-best && autoresearch bench --kernel k\n"));
}

TEST_CASE("report text: a run still going says so, and how it stands") {
  Report r = build_report(test::report_log_in_progress());
  CHECK(has(render_report_text(r, 100), "no final line (still running, or killed)"));
  mark_running(r, "run k-1 (pid 42)");
  const std::string t = render_report_text(r, 100);
  CHECK(has(t, "goal 2.00x not reached; still running"));
  CHECK(has(t, "result: 1.250x vs the start [95% CI 1.240–1.260] (at keep #1)"));
  CHECK(has(t, "note: the run is still going (run k-1 (pid 42))"));
}

TEST_CASE("report markdown: headings, tables and a shell block; a pipe in a cell does not split it") {
  const std::string m = render_report_markdown(build_report(hostile_log()));
  CHECK(m.rfind("# run k-1", 0) == 0);
  CHECK(has(m, "\n## per workload: start → best\n"));
  CHECK(has(m, "\n## per-workload winners\n"));
  CHECK(has(m, "|----------|"));
  CHECK(has(m, "```sh\ngit worktree add ../"));
  CHECK(has(m, "GPU \\| \"fast\""));
  // Every table row has as many cells as its header.
  std::istringstream lines(m);
  std::string line;
  size_t columns = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '|') {
      columns = 0;
      continue;
    }
    const size_t cells = count(line, "|") - count(line, "\\|");
    if (columns == 0) columns = cells;
    CHECK(cells == columns);
  }
}

TEST_CASE("report csv: one row per workload, every row as wide as the header, quoted where needed") {
  LogContents log = test::report_log();
  log.lines[1]["bench"]["workloads"][0]["name"] = "small, \"hot\"";
  for (json& l : log.lines)
    if (l.value("type", "") == "final") l["workloads"][0]["workload"] = "small, \"hot\"";
  const std::string c = render_report_csv(build_report(log));
  std::istringstream lines(c);
  std::string header, first, second, extra;
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  CHECK_FALSE(std::getline(lines, extra));
  CHECK(header.rfind("workload,start_us,best_us,speedup,ci_low,ci_high,", 0) == 0);
  CHECK(has(header, ",winner_candidate,winner_speedup,winner_measured"));
  CHECK(first.rfind("\"small, \"\"hot\"\"\",100,80,1.25,1.24,1.26,1e+09,1e+07,", 0) == 0);
  CHECK(second.rfind("big,1000,790,1.27,1.26,1.28,", 0) == 0);
  CHECK(has(second, ",memory,1,1.25,full"));
  // Outside quotes, each row has the header's commas.
  auto commas = [](const std::string& s) {
    size_t n = 0;
    bool quoted = false;
    for (char ch : s) {
      if (ch == '"') quoted = !quoted;
      if (ch == ',' && !quoted) ++n;
    }
    return n;
  };
  CHECK(commas(first) == commas(header));
  CHECK(commas(second) == commas(header));
}

TEST_CASE("report json: every fact, typed, for machines") {
  const json j = render_report_json(build_report(test::report_log()));
  CHECK(j["run_id"] == "k-1");
  CHECK(j["result"]["speedup"].get<double>() == Approx(1.26));
  CHECK(j["result"]["ci"][1].get<double>() == Approx(1.27));
  CHECK(j["finished"] == true);
  REQUIRE(j["workloads"].size() == 2);
  CHECK(j["workloads"][0]["name"] == "small");
  CHECK(j["workloads"][0]["best"]["pct_of_roofline"].get<double>() == Approx(12.5));
  CHECK(j["candidates"] == 4);
  CHECK(j["keeps"] == 1);
  CHECK(j["keep_rate"].get<double>() == Approx(0.25));
  CHECK(j["decisions"]["wrong"] == 1);
  CHECK(j["wall_seconds"].get<double>() == Approx(180));
  CHECK(j["phases"][0]["phase"] == "agent");
  CHECK(j["phases_missing"] == json::array({"sanitizer"}));
  CHECK(j["winners"][0]["candidate"] == 2);
  CHECK(j["winners"][0]["measured"] == "screen");
  CHECK(j["tokens"]["in"] == 1500);
  CHECK(j["best_commit"] == "c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1");
  CHECK(j["reproduce"].size() == 3);
  CHECK(j["steps"][1]["estimate_vs_start"].get<double>() == Approx(0.95 * 1.25));
}

TEST_CASE("report html: one self-contained page with the five plots, nothing fetched, no script") {
  const std::string h = render_report_html(build_report(test::report_log()));
  CHECK(h.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(has(h, "Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\""));
  CHECK(count(h, "<svg ") == 5);
  CHECK(count(h, "</svg>") == 5);
  for (const char* title : {"best speedup vs the start, per candidate", "best speedup vs the start, over time",
                            "per workload: % of the roofline, start and best",
                            "roofline: achieved rate against arithmetic intensity", "decisions over time"})
    CHECK(has(h, std::string("<title>") + title));
  CHECK_FALSE(has(h, "nothing to plot"));
  CHECK_FALSE(has(h, "<script"));
  CHECK_FALSE(has(h, "<link"));
  CHECK_FALSE(has(h, "<img"));
  CHECK_FALSE(has(h, "url("));
  // The only address is SVG's namespace name, which is never fetched.
  std::string rest = std::regex_replace(h, std::regex("http://www\\.w3\\.org/2000/svg"), "");
  CHECK_FALSE(has(rest, "http:"));
  CHECK_FALSE(has(rest, "https:"));
  CHECK_FALSE(has(rest, "//cdn"));
  // Keeps are marked on both progress plots.
  CHECK(count(h, ">#1</text>") == 2);
  CHECK(has(h, "per-workload winners"));
}

TEST_CASE("report html: every string from the log is escaped, bad bytes replaced") {
  const std::string h = render_report_html(build_report(hostile_log()));
  CHECK_FALSE(has(h, "<script"));
  CHECK_FALSE(has(h, "<img"));
  CHECK_FALSE(has(h, "<b>done"));
  CHECK(has(h, "&lt;script&gt;alert(1)&lt;/script&gt; \xEF\xBF\xBD"));
  CHECK(has(h, "plateau &quot;&amp;&quot; &lt;b&gt;done&lt;/b&gt;"));
  CHECK(has(h, "k-1&lt;img src=x onerror=alert(1)&gt;"));
  CHECK_FALSE(has(h, "\xff"));
}

TEST_CASE("report html: a run with nothing measured still renders, saying so in each plot") {
  LogContents log{test::report_header(), {}, false};
  const std::string h = render_report_html(build_report(log));
  CHECK(count(h, "<svg ") == 3);   // progress twice and decisions; no workloads, no roofline
  CHECK(count(h, "nothing to plot") == 1);   // the decisions chart; progress still draws the start at 1.0x
  CHECK(has(h, "no per-workload measurement in the log"));
}
