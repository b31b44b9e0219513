// Which variants a dispatch holds, from a run's log: the best serves every
// workload unless another verified candidate won it by more than the min-gain;
// winners are ranked by what they win; workloads no candidate was measured on
// are not known shapes; failed candidates never compete.
#include "autoresearch/log/dispatch_plan.h"
#include "catch.h"

using namespace ar;
using nlohmann::json;

namespace {

json rows(std::initializer_list<std::pair<const char*, double>> ratios) {
  json out = json::array();
  for (const auto& [name, ratio] : ratios) out.push_back({{"name", name}, {"ratio", ratio}});
  return out;
}

json candidate(int id, const char* decision, json screen, json bench = nullptr) {
  json c = {{"type", "candidate"}, {"id", id}, {"decision", decision}, {"verify", {{"ok", true}}}};
  if (!screen.is_null()) c["screen"] = {{"workloads", screen}};
  if (!bench.is_null()) c["bench"] = {{"workloads", bench}};
  if (std::string(decision) == "keep") c["commit"] = "c" + std::to_string(id);
  return c;
}

LogContents run_log(std::vector<json> lines) {
  LogContents log;
  log.header = {{"type", "header"}, {"keep_rule", {{"min_gain", 0.01}}}};
  json base = {{"type", "baseline"},
               {"bench", {{"workloads", json::array({{{"name", "big"}, {"median_us", 100.0}},
                                                      {{"name", "small"}, {"median_us", 10.0}},
                                                      {{"name", "tiny"}, {"median_us", 1.0}},
                                                      {{"name", "never"}, {"median_us", 5.0}}})}}}};
  log.lines.push_back(base);
  for (auto& l : lines) log.lines.push_back(std::move(l));
  return log;
}

}  // namespace

TEST_CASE("a dispatch holds the best and the candidates that beat it somewhere, ranked by what they win") {
  LogContents log = run_log({
      candidate(1, "keep", nullptr, rows({{"big", 1.2}, {"small", 1.1}, {"tiny", 1.1}})),
      candidate(2, "discard", rows({{"big", 0.7}, {"small", 1.5}, {"tiny", 1.3}})),   // wins small and tiny
      candidate(3, "discard", rows({{"big", 0.9}, {"small", 1.005}, {"tiny", 1.6}})),  // wins tiny by more
      candidate(4, "crash", rows({{"big", 9.0}})),                                     // never competes
      candidate(5, "discard", rows({{"big", 1.004}})),                                 // below the min-gain
  });
  DispatchPlan p = plan_dispatch(log, 4);
  CHECK(p.best_candidate == 1);
  REQUIRE(p.candidates.size() == 3);
  CHECK(p.candidates[0] == 1);
  CHECK(p.variant_of.at("big") == 1);
  CHECK(p.candidates[p.variant_of.at("small") - 1] == 2);
  CHECK(p.candidates[p.variant_of.at("tiny") - 1] == 3);
  CHECK(p.gain.at("small") == Approx(1.5));
  CHECK(p.gain.at("tiny") == Approx(1.6));
  // No candidate was measured on it: not a shape the selector may claim to know.
  CHECK(p.variant_of.count("never") == 0);
  CHECK(p.left_out.empty());

  SECTION("past --max-variants, the winner that wins least is left out and its workloads go to the best") {
    DispatchPlan two = plan_dispatch(log, 2);
    REQUIRE(two.candidates.size() == 2);
    REQUIRE(two.left_out.size() == 1);
    const int kept = two.candidates[1];
    CHECK((kept == 2 || kept == 3));
    for (const char* w : {"small", "tiny"}) {
      const int v = two.variant_of.at(w);
      CHECK((v == 1 || two.candidates[v - 1] == kept));
    }
  }
}

TEST_CASE("a run where nothing beat the best anywhere has nothing to dispatch") {
  LogContents log = run_log({candidate(1, "discard", rows({{"big", 0.95}, {"small", 1.001}}))});
  DispatchPlan p = plan_dispatch(log, 4);
  CHECK(p.best_candidate == 0);
  CHECK(p.candidates == std::vector<int>{0});
  CHECK(p.variant_of.at("big") == 1);
  CHECK(candidate_line(log, 1) != nullptr);
  CHECK(candidate_line(log, 7) == nullptr);
}
