#pragma once
// The loop against fakes: a scripted harness (times from a model of the
// artifact: the tunable X and markers in the source), a fake compiler, a fake
// clock and a recording printer; git is real, in a temporary repository,
// because the loop edits files in its worktree. Text agents run for real:
// /bin/sh and bwrap go to the real process runner.
#include <atomic>
#include <fstream>
#include <random>

#include "autoresearch/log/experiment_log.h"
#include "autoresearch/loop/run_loop.h"
#include "autoresearch/util/errors.h"
#include "catch.h"
#include "unit/fakes/fake_process.h"
#include "unit/fakes/temp_dir.h"

namespace loop_test {

namespace fs = std::filesystem;
using namespace ar;


// What the scripted harness reads from an artifact (the fake compiler writes
// its command line and the kernel source into it).
struct Model {
  int x = 0;            // the tunable X
  bool fast = false;    // the source says FAST: 0.7x the time
  bool wrong = false;   // X = 3, or the source says WRONG
  bool crash = false;   // the source says CRASH: the harness dies in its verify
  bool skew = false;    // the source says SKEW: X = 2 halves workload n = 1 and slows n = 2 by 20%
};

// Times in µs by the value of X that the artifact was built with, the source,
// and the workload's parameter n.
inline double model_us(const Model& m, int n = 1) {
  double t = m.x == 1 ? 90 : m.x == 2 ? 80 : 100;
  if (m.skew && m.x == 2) t = n == 1 ? 50 : 120;
  return m.fast ? t * 0.7 : t;
}

// The order of the requests, over every (re)started harness of a run.
struct HarnessCalls {
  int benches = 0;
  std::vector<std::pair<std::string, int>> verifies;   // the slot, and the benches before it
};

class ScriptedHarness : public Harness {
 public:
  // With a clock, each request takes the time it reports (verify 0.01 s, bench 0.05 s).
  ScriptedHarness(std::atomic<bool>* stop, int interrupt_at_bench, int* kills_left, FakeClock* clock = nullptr,
                  HarnessCalls* calls = nullptr)
      : stop_(stop), interrupt_at_(interrupt_at_bench), kills_left_(kills_left), clock_(clock), calls_(calls) {}
  // A (re)start is a new process: nothing is loaded.
  std::optional<nlohmann::json> start(std::string*) override {
    slots_.clear();
    return nlohmann::json{{"name", "Fake GPU"}, {"kind", "cpu"}};
  }
  void stop() override {}
  HarnessReply call(const nlohmann::json& req, std::chrono::milliseconds) override {
    HarnessReply r;
    r.status = HarnessReply::Status::Ok;
    std::string cmd = req["cmd"];
    if (cmd == "load") {
      std::ifstream in(req["artifact"].get<std::string>());
      std::string text((std::istreambuf_iterator<char>(in)), {});
      Model m;
      m.x = text.find("-DX=") == std::string::npos ? 0 : text[text.find("-DX=") + 4] - '0';
      m.fast = text.find("FAST") != std::string::npos;
      m.wrong = m.x == 3 || text.find("WRONG") != std::string::npos;
      m.crash = text.find("CRASH") != std::string::npos;
      m.skew = text.find("SKEW") != std::string::npos;
      slots_[req["slot"]] = m;
      r.body = {{"ok", true}};
    } else if ((cmd == "verify" || cmd == "bench") && !loaded(req)) {
      r.status = HarnessReply::Status::Error;
      r.body = {{"ok", false}, {"kind", "bad_request"}, {"error", "a slot is not loaded"}};
      r.message = "bad_request: a slot is not loaded";
      return r;
    } else if (cmd == "verify") {
      if (calls_) calls_->verifies.push_back({req["slot"].get<std::string>(), calls_->benches});
      if (slots_[req["slot"]].crash) {
        r.status = HarnessReply::Status::Crashed;
        r.signal = 11;
        r.message = "the harness died (killed by signal 11 (SIGSEGV))";
        return r;
      }
      if (req["slot"] == "cand" && kills_left_ && *kills_left_ > 0) {
        // The OOM killer takes the harness: not the candidate's doing.
        --*kills_left_;
        r.status = HarnessReply::Status::Crashed;
        r.signal = 9;
        r.message = "the harness died (killed by signal 9 (SIGKILL))";
        return r;
      }
      bool wrong = slots_[req["slot"]].wrong;
      r.body = {{"ok", true}, {"pass", !wrong}, {"reason", wrong ? "out: 7 elements outside tolerance" : ""}, {"seconds", 0.01}};
      if (clock_) clock_->advance(0.01);
    } else if (cmd == "bench") {
      if (++benches_ == interrupt_at_) {
        stop_->store(true);
        r.status = HarnessReply::Status::Cancelled;
        r.message = "interrupted";
        return r;
      }
      int n = req["min_samples"];
      nlohmann::json samples = nlohmann::json::object();
      for (const auto& slot : req["slots"]) {
        std::vector<double> v;
        const int wn = req.contains("workload") ? req["workload"]["params"].value("n", 1) : 1;
        for (int i = 0; i < n; ++i) v.push_back(model_us(slots_[slot], wn) * (1 + 0.002 * noise_(rng_)));
        samples[slot.get<std::string>()] = v;
      }
      r.body = {{"ok", true}, {"samples", samples}, {"rounds", n}, {"seconds", 0.05}};
      // Like the real harnesses, the timed replays of a checked slot are compared
      // with the reference: a wrong kernel fails its bench.
      if (req.contains("replay_check")) {
        bool pass = true;
        for (const auto& slot : req["replay_check"].value("check_slots", nlohmann::json::array()))
          pass = pass && !slots_[slot.get<std::string>()].wrong;
        r.body["replay_check"] = {{"pass", pass}, {"reason", pass ? "" : "out: 7 elements outside tolerance"}};
      }
      if (calls_) ++calls_->benches;
      if (clock_) clock_->advance(0.05);
    } else {
      r.body = {{"ok", true}};
    }
    return r;
  }

 private:
  bool loaded(const nlohmann::json& req) const {
    if (req.contains("slot") && !slots_.count(req["slot"].get<std::string>())) return false;
    if (req.contains("slots"))
      for (const auto& slot : req["slots"])
        if (!slots_.count(slot.get<std::string>())) return false;
    return true;
  }

  std::atomic<bool>* stop_;
  int interrupt_at_;
  int* kills_left_;
  FakeClock* clock_;
  HarnessCalls* calls_;
  int benches_ = 0;
  std::map<std::string, Model> slots_;
  std::mt19937_64 rng_{42};
  std::normal_distribution<double> noise_{0, 1};
};

struct Fixture {
  TempDir dir;
  TempDir locks;   // device locks: not the machine's, other tests measure meanwhile
  FakeProcessRunner compiler;
  RealProcessRunner real;
  FakeClock clock;
  RecordingPrinter printer;
  std::atomic<bool> stop{false};
  int interrupt_at_bench = -1;
  int harness_kills = 0;     // verifies of the candidate that die by SIGKILL first
  bool work_takes_time = false;   // the harness's requests and each compile advance the clock
  HarnessCalls calls;
  World world;

  Fixture() {
    fs::path pkg = dir.path() / "kernels" / "toy";
    fs::create_directories(pkg);
    std::ofstream(pkg / "kernel.cpp") << "extern \"C\" void ar_kernel(const void*) {}\n";
    std::ofstream(pkg / "problem.cpp") << "// protected\n";
    std::ofstream(pkg / "tunables.json") << "{\"X\": 0}\n";
    std::ofstream(pkg / "manifest.json") << R"({"schema": 1, "name": "toy", "backend": "cpu",
      "editable": ["kernel.cpp"], "kernel": {"source": "kernel.cpp", "tunables_file": "tunables.json"},
      "harness": {"sources": ["problem.cpp"]},
      "tunables": [{"name": "X", "values": [0, 1, 2, 3], "default": 0}],
      "workloads": [{"name": "w1", "params": {"n": 1}, "quick": true, "timed": true},
                    {"name": "w2", "params": {"n": 2}, "timed": true}],
      "tolerances": [{"output": "out", "abs": 1e-3}]})";
    git({"init", "-q", "-b", "main"});
    git({"add", "-A"});
    git({"commit", "-qm", "toy"});
    // The fake compiler: -E echoes the kernel under a line marker, and the
    // tunables it uses (every -D but UNUSED_*: a tunable the source ignores
    // preprocesses to the same text); a build writes the command line into the
    // artifact, where the harness reads X.
    compiler.on("c++", [this](const ProcessSpec& s) {
      ProcessResult r;
      r.exit_code = 0;
      bool preprocess = std::find(s.argv.begin(), s.argv.end(), "-E") != s.argv.end();
      if (work_takes_time) clock.advance(preprocess ? 0.1 : 0.5);
      if (preprocess) {
        r.out = "# 1 \"" + s.argv.back() + "\"\nextern \"C\" void ar_kernel(const void*) {}\n";
        for (const auto& a : s.argv)
          if (a.rfind("-D", 0) == 0 && a.rfind("-DUNUSED_", 0) != 0) r.out += "// uses " + a.substr(2) + "\n";
        return r;
      }
      auto out = std::find(s.argv.begin(), s.argv.end(), "-o");
      std::ofstream f(*(out + 1));
      for (const auto& a : s.argv) f << a << " ";
      std::ifstream source(*(out - 1));
      f << "\n" << std::string((std::istreambuf_iterator<char>(source)), {});
      return r;
    });
    // Agent commands and the sandbox probe run for real.
    for (const char* program : {"/bin/sh", "bwrap"})
      compiler.on(program, [this](const ProcessSpec& s) { return real.run(s); });
    world.runner = &compiler;
    world.clock = &clock;
    world.printer = &printer;
    world.stop = &stop;
    world.open_git = [this](const fs::path& d) { return make_real_git(real, d); };
    world.open_harness = [this](const fs::path&, int) {
      return std::make_unique<ScriptedHarness>(&stop, interrupt_at_bench, &harness_kills,
                                               work_takes_time ? &clock : nullptr, &calls);
    };
    world.find_toolchain = [](Backend, std::string*) { return Toolchain{"c++", "fake 1.0"}; };
    world.build_harness = [](const Manifest&, const Paths&, const Toolchain&) { return fs::path("/fake/harness"); };
  }

  std::string git(const std::vector<std::string>& args) {
    ProcessSpec s;
    s.argv = {"git", "-C", dir.path().string(), "-c", "user.name=t", "-c", "user.email=t@t"};
    s.argv.insert(s.argv.end(), args.begin(), args.end());
    auto r = real.run(s);
    REQUIRE(r.ok());
    return r.out;
  }

  RunRequest request(std::vector<std::pair<std::string, nlohmann::json>> options = {}) {
    RunRequest req;
    req.paths.repo = dir.path();
    req.paths.home = AR_TEST_SOURCE_DIR;
    req.paths.locks = locks.path();
    req.config.kernel = "toy";
    req.config.tag = "t";
    req.config.seed = 5;
    req.config.strategy = "random";
    req.config.cache = false;
    for (auto& [k, v] : options) apply_json(req.config, {{k, v}}, "test");
    return req;
  }

  std::vector<nlohmann::json> lines() {
    return read_log(dir.path() / ".autoresearch/runs/toy-t/experiments.jsonl").lines;
  }
};

inline std::vector<nlohmann::json> of(const std::vector<nlohmann::json>& lines, const std::string& type) {
  std::vector<nlohmann::json> out;
  for (const auto& l : lines)
    if (l["type"] == type) out.push_back(l);
  return out;
}

}  // namespace loop_test
