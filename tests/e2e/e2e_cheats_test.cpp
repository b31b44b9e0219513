// The CPU cheat suite through the product's own path (issue 7): one
// `autoresearch run --agent command` on matmul_cpu whose agent,
// tests/e2e/cheats/apply_cheat.sh, applies cheat i on call i. Every cheat must
// end with a non-keep decision whose reason names the guard that stopped it
// (tests/e2e/cheats/cpu_expectations.json); every honest variant must not be
// rejected, found wrong or crash (a false alarm; the target is 0). The table of
// outcomes is printed either way.
//
// Tagged [cheats][.]: hidden from the plain e2e run (it takes minutes), run by
// ctest as e2e_cheats (label e2e).
#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>

#include <fmt/format.h>

#include "catch.h"
#include "e2e_support.h"

namespace fs = std::filesystem;
using e2e::of_type;
using e2e::read_log;
using e2e::run_cli;
using e2e::TempRepo;

namespace {

const fs::path kCheats = fs::path(AR_SOURCE_DIR) / "tests" / "e2e" / "cheats";

struct Expected {
  std::string name;
  bool honest = false;
  std::string guard;
  std::vector<std::string> decisions;
  std::vector<std::string> reasons;   // one of them must appear in the reason
};

// The expectation table, in the order apply_cheat.sh applies it: cheats by
// name, then honest variants by name.
std::vector<Expected> expectations() {
  auto doc = nlohmann::json::parse(std::ifstream(kCheats / "cpu_expectations.json"));
  std::vector<Expected> out;
  for (const auto& [name, e] : doc.at("cheats").items())
    out.push_back({name, false, e.at("guard"), e.at("decisions").get<std::vector<std::string>>(),
                   e.at("reason").get<std::vector<std::string>>()});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  std::vector<std::string> honest = doc.at("honest").get<std::vector<std::string>>();
  std::sort(honest.begin(), honest.end());
  for (const auto& h : honest) out.push_back({h, true, "none (honest)", {}, {}});
  return out;
}

std::set<std::string> suite_files() {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(kCheats / "cpu")) {
    const std::string ext = e.path().extension().string();
    if (ext == ".cpp" || ext == ".sh") names.insert(e.path().stem().string());
  }
  return names;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The candidate whose idea is "cheat: NAME" / "honest: NAME".
const nlohmann::json* candidate_for(const std::vector<nlohmann::json>& candidates, const Expected& e) {
  const std::string idea = std::string(e.honest ? "honest: " : "cheat: ") + e.name;
  for (const auto& c : candidates) {
    std::string text = c.value("idea", "");
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '.')) text.pop_back();
    if (text == idea) return &c;
  }
  return nullptr;
}

std::string shorten(std::string s, size_t n) {
  for (auto& ch : s)
    if (ch == '\n' || ch == '|') ch = ' ';
  return s.size() > n ? s.substr(0, n - 3) + "..." : s;
}

}  // namespace

TEST_CASE("every planted CPU cheat is stopped by its guard through `run`, and no honest variant is rejected",
          "[cheats][.]") {
  const auto expected = expectations();
  // The table and the suite describe the same files.
  std::set<std::string> described;
  for (const auto& e : expected) described.insert(e.name);
  REQUIRE(described == suite_files());

  TempRepo repo({"matmul_cpu"});
  const std::string agent = "sh '" + (kCheats / "apply_cheat.sh").string() + "'";
  const int n = static_cast<int>(expected.size());
  // Every entry must be judged, so no goal may end the run early: an honest
  // variant is a real speedup (about 2x over the starting kernel, more on some
  // machines) and the default goal of 2x once stopped the run before the last
  // honest variants were tried.
  auto r = run_cli(repo,
                   {"run", "--kernel", "matmul_cpu", "--agent", "command", "--agent-cmd", agent, "--config",
                    std::string(AR_SOURCE_DIR) + "/configs/quick.json", "--goal", "1000x", "--plateau", "0",
                    "--max-iters", std::to_string(n), "--hidden", "3", "--seed", "17", "--tag", "cheats"},
                   2100);
  INFO(r.err.substr(r.err.size() > 20000 ? r.err.size() - 20000 : 0));
  // The iteration budget or the agent ran out (exit 3), never the goal.
  REQUIRE(r.exit_code == 3);

  const auto lines = read_log(repo.dir / ".autoresearch/runs/matmul_cpu-cheats/experiments.jsonl");
  const auto candidates = of_type(lines, "candidate");

  struct Row {
    std::string name, guard, decision, reason;
    bool ok;
  };
  std::vector<Row> rows;
  int false_alarms = 0, missed = 0;
  for (const auto& e : expected) {
    const nlohmann::json* c = candidate_for(candidates, e);
    Row row{e.name, e.guard, c ? c->value("decision", "?") : "(no candidate)", c ? c->value("reason", "") : "", false};
    if (!c) {
      ++missed;
    } else if (e.honest) {
      row.ok = row.decision != "rejected_by_guard" && row.decision != "wrong" && row.decision != "crash";
      if (!row.ok) ++false_alarms;
    } else {
      const bool decided = std::find(e.decisions.begin(), e.decisions.end(), row.decision) != e.decisions.end();
      bool named = false;
      for (const auto& k : e.reasons) named = named || contains(row.reason, k);
      row.ok = decided && named && row.decision != "keep";
      if (!row.ok) ++missed;
    }
    rows.push_back(row);
  }

  std::string table = "| entry | must be stopped by | decision | ok | reason |\n|---|---|---|---|---|\n";
  for (const auto& row : rows)
    table += fmt::format("| {} | {} | {} | {} | {} |\n", row.name, row.guard, row.decision, row.ok ? "yes" : "NO",
                         shorten(row.reason, 140));
  table += fmt::format("\n{} entries: {} cheats not stopped as expected, {} false alarms on honest variants\n", n,
                       missed, false_alarms);
  std::cout << table << std::flush;

  INFO(table);
  CHECK(static_cast<int>(candidates.size()) == n);
  CHECK(missed == 0);
  CHECK(false_alarms == 0);
  // Nothing a cheat did reached the branch: every commit on it is an honest variant's.
  for (const auto& c : candidates)
    if (c.value("decision", "") == "keep") CHECK(c.value("idea", "").rfind("honest: ", 0) == 0);
}
