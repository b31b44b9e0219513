// verify --dry-run's judgement: the manifest held against what the problem's
// host side answered (its outputs, its params, the sizes it rejects), each
// finding naming the file and the field; and the probe's reply as parsed.
#include <fstream>

#include "autoresearch/build/problem_probe.h"
#include "autoresearch/util/errors.h"
#include "catch.h"
#include "unit/fakes/fake_process.h"
#include "unit/fakes/temp_dir.h"

namespace fs = std::filesystem;
using namespace ar;

namespace {

Manifest package(const fs::path& dir, const std::string& tolerances, const std::string& hidden) {
  fs::create_directories(dir);
  std::ofstream(dir / "kernel.cpp") << "// kernel\n";
  std::ofstream(dir / "problem.cpp") << "// protected\n";
  std::ofstream(dir / "tunables.json") << "{\"X\": 0}\n";
  std::ofstream(dir / "manifest.json") << R"({"schema": 1, "name": "pkg", "backend": "cpu",
    "editable": ["kernel.cpp"], "kernel": {"source": "kernel.cpp", "tunables_file": "tunables.json"},
    "harness": {"sources": ["problem.cpp"]},
    "tunables": [{"name": "X", "values": [0, 1], "default": 0}],
    "workloads": [{"name": "small", "params": {"n": 1}, "quick": true, "timed": true},
                  {"name": "typo", "params": {"n": 8, "nn": 2}}],
    "hidden_workloads": )" << hidden << R"(,
    "metrics": {"flops": "2*n", "bytes": "12*n"},
    "tolerances": )" << tolerances << "}";
  return load_manifest(dir / "manifest.json");
}

ProbeReport answered(std::vector<std::string> outputs, std::vector<std::string> params, size_t workloads) {
  ProbeReport r;
  r.outputs = std::move(outputs);
  r.params = std::move(params);
  r.workloads.resize(workloads);
  return r;
}

int count_with(const std::vector<std::string>& v, const std::string& needle) {
  int n = 0;
  for (const auto& s : v) n += s.find(needle) != std::string::npos;
  return n;
}

}  // namespace

TEST_CASE("dry run: the workloads asked about are the declared ones and the hidden ranges' corners", "[dry-run]") {
  TempDir dir;
  Manifest m = package(dir.path(), R"([{"output": "out", "abs": 1e-5}])",
                       R"({"count": 1, "params": {"n": {"log_int": [3, 900]}, "k": {"choice": [7, 1, 64]}, "f": 5}})");
  auto w = probe_workloads(m);
  REQUIRE(w.size() == 4);
  CHECK(w[1].where == "workloads[1] (typo)");
  CHECK(w[2].params == nlohmann::json({{"n", 3}, {"k", 1}, {"f", 5}}));
  CHECK(w[3].params == nlohmann::json({{"n", 900}, {"k", 64}, {"f", 5}}));
  CHECK(w[3].where.find("highest") != std::string::npos);
}

TEST_CASE("dry run: tolerances against the problem's outputs", "[dry-run]") {
  TempDir dir;
  Manifest m = package(dir.path(), R"([{"output": "out", "abs": 1e-5}, {"output": "lse_typo", "abs": 1e-5}])",
                       R"({"count": 0, "params": {}})");
  auto w = probe_workloads(m);
  auto f = probe_findings(m, w, answered({"out", "lse"}, {"n", "nn"}, w.size()));
  REQUIRE(f.errors.size() == 2);
  CHECK(f.errors[0] == m.file.string() + ": tolerances[1].output: 'lse_typo' is not an output of the problem "
                                         "(its outputs: out, lse)");
  CHECK(f.errors[1].find("tolerances: no tolerance for the problem's output 'lse'") != std::string::npos);

  // Nothing declared: nothing claimed, and the notes say what was not checked.
  auto none = probe_findings(m, w, answered({}, {}, w.size()));
  CHECK(none.errors.empty());
  CHECK(count_with(none.notes, "output_names()") == 1);
  CHECK(count_with(none.notes, "param_names()") == 1);
}

TEST_CASE("dry run: params the problem does not read, declared and hidden", "[dry-run]") {
  TempDir dir;
  Manifest m = package(dir.path(), R"([{"output": "out", "abs": 1e-5}])",
                       R"({"count": 1, "params": {"n": {"int": [1, 9]}, "pad": {"choice": [0, 1]}}})");
  auto w = probe_workloads(m);
  auto f = probe_findings(m, w, answered({"out"}, {"n"}, w.size()));
  REQUIRE(f.errors.size() == 2);
  CHECK(f.errors[0] == m.file.string() + ": workloads[1].params.nn (workload typo): the problem does not read "
                                         "this param (it reads: n)");
  CHECK(f.errors[1] == m.file.string() + ": hidden_workloads.params.pad: the problem does not read this param (it "
                                         "reads: n)");
}

TEST_CASE("dry run: sizes the problem rejects, with its reason", "[dry-run]") {
  TempDir dir;
  Manifest m = package(dir.path(), R"([{"output": "out", "abs": 1e-5}])",
                       R"({"count": 1, "params": {"n": {"int": [1, 99999]}, "nn": 0}})");
  auto w = probe_workloads(m);
  auto r = answered({"out"}, {"n", "nn"}, w.size());
  r.workloads[3] = {false, "workload param 'n': expected an integer in [1, 4096], got 99999", 0};
  auto f = probe_findings(m, w, r);
  REQUIRE(f.errors.size() == 1);
  CHECK(f.errors[0] == m.file.string() + ": hidden_workloads.params (every range at its highest): the problem "
                                         "rejects {\"n\":99999,\"nn\":0}: workload param 'n': expected an integer in "
                                         "[1, 4096], got 99999");
}

TEST_CASE("dry run: the probe's reply, and a problem that cannot be made", "[dry-run]") {
  FakeProcessRunner runner;
  runner.on("/x/probe", FakeProcessRunner::exited(0, R"({"ok":true,"outputs":["c"],"params":["m","n"],
    "workloads":[{"id":1,"ok":false,"error":"too big"},{"id":0,"ok":true,"rotation_bytes":48}]})"));
  std::vector<ProbeWorkload> w = {{"a", {{"m", 1}}}, {"b", {{"m", 2}}}};
  ProbeReport r = run_probe("/x/probe", w, runner);
  CHECK(r.outputs == std::vector<std::string>{"c"});
  CHECK(r.params == std::vector<std::string>{"m", "n"});
  REQUIRE(r.workloads.size() == 2);
  CHECK(r.workloads[0].ok);
  CHECK(r.workloads[0].rotation_bytes == 48);
  CHECK_FALSE(r.workloads[1].ok);
  CHECK(r.workloads[1].error == "too big");
  const auto sent = nlohmann::json::parse(runner.calls().at(0).stdin_data);
  CHECK(sent["workloads"][1]["params"] == nlohmann::json({{"m", 2}}));

  FakeProcessRunner failing;
  failing.on("/x/probe", FakeProcessRunner::exited(0, R"({"ok":false,"error":"no device"})"));
  try {
    run_probe("/x/probe", w, failing);
    FAIL("expected a usage error");
  } catch (const Fatal& e) {
    CHECK(e.code() == kExitUsage);
    CHECK(std::string(e.what()).find("make_problem() failed: no device") != std::string::npos);
  }
}

TEST_CASE("dry run: many draws rejected alike are told three times, then counted", "[dry-run]") {
  TempDir dir;
  Manifest m = package(dir.path(), R"([{"output": "out", "abs": 1e-5}])",
                       R"({"count": 1, "params": {"n": {"int": [1, 99999]}, "nn": 0}})");
  std::vector<ProbeWorkload> w(7, ProbeWorkload{"hidden_workloads.params (drawn)", {{"n", 5000}, {"nn", 0}}});
  auto r = answered({"out"}, {"n", "nn"}, w.size());
  for (auto& v : r.workloads) v = {false, "too big", 0};
  auto f = probe_findings(m, w, r);
  REQUIRE(f.errors.size() == 4);
  CHECK(f.errors[3] == m.file.string() + ": hidden_workloads.params (drawn): 4 more workloads rejected");
}
