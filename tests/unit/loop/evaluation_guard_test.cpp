// The driver's reading of the harness's guard replies (PROTOCOL.md "guard"):
// verify and bench steps end with StepStatus::Guard and a reason that keeps
// the rule and the message; a wrong timed replay is judged before the sample
// count; the bench request carries the manifest's `deterministic` and the
// checked slot.
#include <deque>
#include <fstream>

#include "autoresearch/loop/evaluation.h"
#include "catch.h"
#include "unit/fakes/temp_dir.h"

using namespace ar;

namespace {

class CannedHarness : public Harness {
 public:
  std::deque<nlohmann::json> replies;
  std::vector<nlohmann::json> requests;
  std::optional<nlohmann::json> start(std::string*) override { return nlohmann::json{{"name", "fake"}}; }
  void stop() override {}
  HarnessReply call(const nlohmann::json& req, std::chrono::milliseconds) override {
    requests.push_back(req);
    HarnessReply r;
    r.body = replies.front();
    replies.pop_front();
    r.status = r.body.value("ok", false) ? HarnessReply::Status::Ok : HarnessReply::Status::Error;
    if (!r.ok()) r.message = r.body.value("kind", "") + ": " + r.body.value("error", "");
    return r;
  }
};

Manifest toy_manifest(bool deterministic) {
  static TempDir dir;
  for (const char* f : {"kernel.cpp", "problem.cpp"}) std::ofstream(dir / f) << "// toy\n";
  std::ofstream(dir / "tunables.json") << "{}\n";
  nlohmann::json doc = {{"schema", 1},
                        {"name", "toy"},
                        {"backend", "cpu"},
                        {"editable", {"kernel.cpp"}},
                        {"kernel", {{"source", "kernel.cpp"}, {"tunables_file", "tunables.json"}}},
                        {"harness", {{"sources", {"problem.cpp"}}}},
                        {"workloads", {{{"name", "w1"}, {"params", {{"n", 1}}}, {"quick", true}, {"timed", true}}}},
                        {"tolerances", {{{"output", "out"}, {"abs", 1e-3}}}},
                        {"deterministic", deterministic}};
  return parse_manifest(doc, dir / "manifest.json");
}

nlohmann::json guard(const std::string& rule, const std::string& error) {
  return {{"ok", false}, {"kind", "guard"}, {"rule", rule}, {"error", error}, {"slot", "cand"}};
}

}  // namespace

TEST_CASE("a guard reply to verify is a Guard step naming the rule", "[loop]") {
  CannedHarness h;
  HarnessSession s(h);
  const Manifest m = toy_manifest(true);
  RunConfig cfg;
  h.replies.push_back(guard("state", "keeps state across calls: __device__ global `g_calls` (4 bytes) changed"));
  auto v = verify_workloads(s, "cand", m.workloads, m, 1, cfg);
  CHECK(v.status == StepStatus::Guard);
  CHECK(std::string(step_status_name(v.status)) == "guard");
  CHECK(v.reason == "guard (state) on w1: keeps state across calls: __device__ global `g_calls` (4 bytes) changed");
  CHECK(v.workloads.at(0).at("guard") == "state");
}

TEST_CASE("bench: guard replies, wrong replays before the sample count, and what is sent", "[loop]") {
  CannedHarness h;
  HarnessSession s(h);
  RunConfig cfg;
  Sampling sampling;

  SECTION("a guard reply") {
    const Manifest m = toy_manifest(false);
    h.replies.push_back(guard("timed-replay", "timed replay 37 (rotation 2) of slot cand differs from the verified output"));
    auto r = measure_pair(s, "inc", "cand", m.workloads, m, sampling, 7, "cand", cfg);
    CHECK(r.status == StepStatus::Guard);
    CHECK(r.reason == "guard (timed-replay) while measuring w1: timed replay 37 (rotation 2) of slot cand differs "
                      "from the verified output");
    const auto& rq = h.requests.at(0);
    CHECK(rq.at("deterministic") == false);
    CHECK(rq.at("replay_check").at("check_slots") == nlohmann::json::array({"cand"}));
  }
  SECTION("a wrong replay with no samples is Wrong, not an infrastructure error") {
    const Manifest m = toy_manifest(true);
    h.replies.push_back({{"ok", true}, {"rounds", 0}, {"samples", {{"inc", nlohmann::json::array()},
                                                                   {"cand", nlohmann::json::array()}}},
                         {"replay_check", {{"pass", false}, {"reason", "the eager run (rotation 3) of slot cand "
                                                                       "on the bench's inputs is wrong: out: ..."}}}});
    auto r = measure_pair(s, "inc", "cand", m.workloads, m, sampling, 7, "cand", cfg);
    CHECK(r.status == StepStatus::Wrong);
    CHECK(r.reason.find("the eager run (rotation 3)") != std::string::npos);
    CHECK(h.requests.at(0).at("deterministic") == true);
  }
  SECTION("no replay slot: no replay_check") {
    const Manifest m = toy_manifest(true);
    h.replies.push_back({{"ok", true}, {"rounds", 3}, {"samples", {{"a", {1.0, 1.0, 1.0}}, {"b", {1.0, 1.0, 1.0}}}}});
    auto r = measure_pair(s, "a", "b", m.workloads, m, sampling, 7, "", cfg);
    CHECK(r.status == StepStatus::Ok);
    CHECK_FALSE(h.requests.at(0).contains("replay_check"));
  }
}
