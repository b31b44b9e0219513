// The loop against fakes: a scripted harness (times from a model of the
// tunables), a fake compiler, a fake clock and a recording printer; git is real,
// in a temporary repository, because the loop edits files in its worktree.
#include <atomic>
#include <fstream>
#include <random>

#include "autoresearch/log/experiment_log.h"
#include "autoresearch/loop/run_loop.h"
#include "autoresearch/util/errors.h"
#include "catch.h"
#include "unit/fakes/fake_process.h"
#include "unit/fakes/temp_dir.h"

namespace fs = std::filesystem;
using namespace ar;

namespace {

// Times in µs by the value of X that the artifact was built with; X = 3 is wrong.
double model_us(int x) { return x == 1 ? 90 : x == 2 ? 80 : 100; }

class ScriptedHarness : public Harness {
 public:
  explicit ScriptedHarness(std::atomic<bool>* stop, int interrupt_at_bench) : stop_(stop), interrupt_at_(interrupt_at_bench) {}
  std::optional<nlohmann::json> start(std::string*) override { return nlohmann::json{{"name", "Fake GPU"}, {"kind", "cpu"}}; }
  void stop() override {}
  HarnessReply call(const nlohmann::json& req, std::chrono::milliseconds) override {
    HarnessReply r;
    r.status = HarnessReply::Status::Ok;
    std::string cmd = req["cmd"];
    if (cmd == "load") {
      std::ifstream in(req["artifact"].get<std::string>());
      std::string text((std::istreambuf_iterator<char>(in)), {});
      slots_[req["slot"]] = text.find("-DX=") == std::string::npos ? 0 : text[text.find("-DX=") + 4] - '0';
      r.body = {{"ok", true}};
    } else if (cmd == "verify") {
      bool wrong = slots_[req["slot"]] == 3;
      r.body = {{"ok", true}, {"pass", !wrong}, {"reason", wrong ? "out: 7 elements outside tolerance" : ""}, {"seconds", 0.01}};
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
        for (int i = 0; i < n; ++i) v.push_back(model_us(slots_[slot]) * (1 + 0.002 * noise_(rng_)));
        samples[slot.get<std::string>()] = v;
      }
      r.body = {{"ok", true}, {"samples", samples}, {"rounds", n}, {"seconds", 0.05}};
    } else {
      r.body = {{"ok", true}};
    }
    return r;
  }

 private:
  std::atomic<bool>* stop_;
  int interrupt_at_;
  int benches_ = 0;
  std::map<std::string, int> slots_;
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
    // The fake compiler: -E echoes the kernel under a line marker; a build
    // writes the command line into the artifact, where the harness reads X.
    compiler.on("c++", [](const ProcessSpec& s) {
      ProcessResult r;
      r.exit_code = 0;
      bool preprocess = std::find(s.argv.begin(), s.argv.end(), "-E") != s.argv.end();
      if (preprocess) {
        r.out = "# 1 \"" + s.argv.back() + "\"\nextern \"C\" void ar_kernel(const void*) {}\n";
        return r;
      }
      auto out = std::find(s.argv.begin(), s.argv.end(), "-o");
      std::ofstream f(*(out + 1));
      for (const auto& a : s.argv) f << a << " ";
      return r;
    });
    world.runner = &compiler;
    world.clock = &clock;
    world.printer = &printer;
    world.stop = &stop;
    world.open_git = [this](const fs::path& d) { return make_real_git(real, d); };
    world.open_harness = [this](const fs::path&, int) {
      return std::make_unique<ScriptedHarness>(&stop, interrupt_at_bench);
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

std::vector<nlohmann::json> of(const std::vector<nlohmann::json>& lines, const std::string& type) {
  std::vector<nlohmann::json> out;
  for (const auto& l : lines)
    if (l["type"] == type) out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("the loop keeps what is really faster, rejects what is wrong, and stops at the goal") {
  Fixture f;
  int code = run_loop(f.world, f.request({{"goal", "1.2x"}, {"max_iters", 10}}));
  auto lines = f.lines();
  auto cands = of(lines, "candidate");
  std::map<long long, std::string> by_x;
  for (const auto& c : cands) by_x[c["tunables"]["X"].get<long long>()] = c["decision"];
  CHECK(code == kExitOk);
  CHECK(by_x[2] == "keep");
  if (by_x.count(3)) CHECK(by_x[3] == "wrong");
  auto fin = of(lines, "final");
  REQUIRE(fin.size() == 1);
  CHECK(fin[0]["goal_reached"] == true);
  CHECK(fin[0]["speedup_vs_baseline"].get<double>() == Approx(1.25).epsilon(0.01));
  // One commit per keep on the run's branch; the checkout itself is untouched.
  int keeps = 0;
  for (const auto& c : cands) keeps += c["decision"] == "keep";
  std::string log = f.git({"log", "--format=%s", "main..autoresearch/toy-t"});
  CHECK(static_cast<int>(std::count(log.begin(), log.end(), '\n')) == keeps);
  CHECK(f.git({"status", "--porcelain"}).empty());
}

TEST_CASE("a budget stops the run with exit 3 when the goal is out of reach") {
  Fixture f;
  int code = run_loop(f.world, f.request({{"goal", "5x"}, {"max_iters", 2}}));
  CHECK(code == kExitStopped);
  CHECK(of(f.lines(), "candidate").size() == 2);
  CHECK(of(f.lines(), "final")[0]["stop_reason"] == "--max-iters 2 reached");
}

TEST_CASE("a signal mid-measurement abandons the candidate cleanly; resume continues the numbering") {
  Fixture f;
  f.interrupt_at_bench = 3;   // the A/A calibration is bench 1; the first screen is bench 2
  int code = run_loop(f.world, f.request({{"goal", "5x"}, {"max_iters", 10}}));
  CHECK(code == kExitInterrupted);
  auto lines = f.lines();
  auto cands = of(lines, "candidate");
  REQUIRE(!cands.empty());
  CHECK(cands.back()["decision"] == "interrupted");
  CHECK(of(lines, "final")[0]["stop_reason"] == "interrupted by a signal");
  int last = cands.back()["id"];

  f.stop = false;
  f.interrupt_at_bench = -1;
  RunRequest again = f.request();
  again.resume = "toy-t";
  again.overrides = {{"max_iters", last + 2}};
  code = run_loop(f.world, again);
  CHECK((code == kExitStopped || code == kExitOk));
  auto after = of(f.lines(), "candidate");
  CHECK(after.back()["id"].get<int>() == last + 2);
  CHECK(of(f.lines(), "resume").size() == 1);
}

TEST_CASE("bad input is refused before anything changes") {
  Fixture f;
  std::ofstream(f.dir.path() / "kernels/toy/kernel.cpp", std::ios::app) << "// uncommitted\n";
  CHECK_THROWS_AS(run_loop(f.world, f.request()), Fatal);
  CHECK(!fs::exists(f.dir.path() / ".autoresearch/runs/toy-t"));
  CHECK(f.git({"branch", "--list", "autoresearch/*"}).empty());
}
