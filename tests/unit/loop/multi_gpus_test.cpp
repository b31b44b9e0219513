// --gpus: one harness per GPU, each judging its own candidate at the same
// time. The GPUs are fakes around the loop fixture's scripted harness; a
// shared recorder sees which GPU measured which artifact, and when.
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <set>
#include <thread>

#include "autoresearch/log/report_model.h"
#include "autoresearch/loop/gpu_list.h"
#include "autoresearch/util/file_lock.h"
#include "unit/loop/loop_fixture.h"

using namespace loop_test;

namespace {

// What every fake GPU reports to, under one lock.
struct Recorder {
  std::mutex mu;
  std::condition_variable cv;
  int measuring_now = 0;                     // candidate benches in progress, over every GPU
  int most_at_once = 0;
  int meet = 0;                              // a GPU's first candidate bench waits until this many run at once
  std::vector<std::pair<int, std::string>> cand_benches;   // GPU, the artifact in its candidate slot
};

struct GpuScript {
  double extra_noise = 0;   // relative noise added to every sample on this GPU
  int fail_after = -1;      // calls after which the device is lost: every call dies, restarts fail
  int err_after = -1;       // calls after which every bench is an error of the harness itself
};

class FakeGpu : public Harness {
 public:
  FakeGpu(int gpu, std::unique_ptr<Harness> inner, Recorder& rec, GpuScript script)
      : gpu_(gpu), inner_(std::move(inner)), rec_(rec), script_(script), rng_(1000 + gpu) {}

  std::optional<nlohmann::json> start(std::string* error) override {
    if (lost()) {
      *error = "cudaErrorDevicesUnavailable: the device is lost";
      return std::nullopt;
    }
    auto hello = inner_->start(error);
    cand_.clear();
    if (hello) *hello = {{"name", "Fake GPU " + std::to_string(gpu_)}, {"kind", "cuda"}};
    return hello;
  }
  void stop() override { inner_->stop(); }

  HarnessReply call(const nlohmann::json& req, std::chrono::milliseconds timeout) override {
    ++calls_;
    if (lost()) {
      HarnessReply r;
      r.status = HarnessReply::Status::Crashed;
      r.message = "the harness died: an unrecoverable device error (Xid 79: the GPU fell off the bus)";
      return r;
    }
    const std::string cmd = req["cmd"];
    if (cmd == "bench" && script_.err_after >= 0 && calls_ > script_.err_after) {
      HarnessReply r;
      r.status = HarnessReply::Status::Error;
      r.body = {{"ok", false}, {"kind", "internal"}, {"error", "the event timer returned an error"}};
      r.message = "internal: the event timer returned an error";
      return r;
    }
    if (cmd == "load" && req["slot"] == "cand") cand_ = req["artifact"].get<std::string>();
    bool cand_bench = cmd == "bench" && req["slots"].size() == 2 && req["slots"][1] == "cand";
    if (cand_bench) enter();
    HarnessReply r = inner_->call(req, timeout);
    if (cmd == "bench" && r.ok() && script_.extra_noise > 0)
      for (auto& [slot, samples] : r.body["samples"].items())
        for (auto& v : samples) v = v.get<double>() * (1 + script_.extra_noise * noise_(rng_));
    if (cand_bench) leave();
    return r;
  }

 private:
  bool lost() const { return script_.fail_after >= 0 && calls_ > script_.fail_after; }

  void enter() {
    std::unique_lock<std::mutex> lock(rec_.mu);
    rec_.cand_benches.push_back({gpu_, cand_});
    rec_.most_at_once = std::max(rec_.most_at_once, ++rec_.measuring_now);
    rec_.cv.notify_all();
    if (!met_ && rec_.meet > 0)
      rec_.cv.wait_for(lock, std::chrono::seconds(5), [&] { return rec_.most_at_once >= rec_.meet; });
    met_ = true;
  }
  void leave() {
    std::lock_guard<std::mutex> lock(rec_.mu);
    --rec_.measuring_now;
  }

  int gpu_;
  std::unique_ptr<Harness> inner_;
  Recorder& rec_;
  GpuScript script_;
  int calls_ = 0;
  bool met_ = false;
  std::string cand_;
  std::mt19937_64 rng_;
  std::normal_distribution<double> noise_{0, 1};
};

struct GpusFixture : Fixture {
  Recorder rec;
  std::map<int, GpuScript> scripts;
  std::mutex open_mu;
  std::map<int, int> opened;   // harnesses opened per GPU

  GpusFixture() {
    world.open_harness = [this](const fs::path&, int gpu) -> std::unique_ptr<Harness> {
      std::lock_guard<std::mutex> lock(open_mu);
      opened[gpu]++;
      auto inner = std::make_unique<ScriptedHarness>(&stop, interrupt_at_bench, &harness_kills, nullptr);
      return std::make_unique<FakeGpu>(gpu, std::move(inner), rec, scripts[gpu]);
    };
  }

  RunRequest on(const std::string& gpus, std::vector<std::pair<std::string, nlohmann::json>> options = {}) {
    RunRequest r = request(std::move(options));
    r.gpus = gpus;
    return r;
  }
};

// Each keep was measured against the keep before it (or the start): no keep
// rests on a comparison with an incumbent that was no longer the best.
void check_keep_chain(const std::vector<nlohmann::json>& cands) {
  int incumbent = 0;
  for (const auto& c : cands) {
    if (c["decision"] != "keep") continue;
    CHECK(c["base"].get<int>() == incumbent);
    incumbent = c["id"];
  }
}

// Every candidate line is whole, the ids run 1..N once each.
void check_lines_complete(const std::vector<nlohmann::json>& cands) {
  std::set<int> ids;
  for (const auto& c : cands) {
    for (const char* k : {"id", "decision", "reason", "finished", "tunables", "base", "phases", "gpu"})
      CHECK(c.contains(k));
    ids.insert(c["id"].get<int>());
  }
  CHECK(ids.size() == cands.size());
  if (!ids.empty()) CHECK(*ids.rbegin() == static_cast<int>(cands.size()));
}

}  // namespace

TEST_CASE("several GPUs judge different candidates at once, each against the incumbent on its own GPU") {
  GpusFixture f;
  f.rec.meet = 2;   // X=1 and X=2 are measured; X=3 fails its verification
  int code = run_loop(f.world, f.on("0,1,2", {{"goal", "5x"}, {"max_iters", 3}, {"plateau", 0}}));
  CHECK(code == kExitStopped);
  auto lines = f.lines();
  auto header = read_log(f.dir.path() / ".autoresearch/runs/toy-t/experiments.jsonl").header;
  CHECK(header["gpus"] == nlohmann::json({0, 1, 2}));
  CHECK(f.opened == std::map<int, int>{{0, 1}, {1, 1}, {2, 1}});
  CHECK(of(lines, "gpu_lane").size() == 3);
  // Measured at the same time: two GPUs were inside a candidate's bench at once.
  CHECK(f.rec.most_at_once >= 2);

  auto cands = of(lines, "candidate");
  REQUIRE(cands.size() == 3);
  check_lines_complete(cands);
  check_keep_chain(cands);
  std::set<int> gpus_used;
  for (const auto& c : cands) {
    REQUIRE(c["gpu"].is_number_integer());
    gpus_used.insert(c["gpu"].get<int>());
    if (!c.contains("bench")) continue;
    // Screened, measured and confirmed on one GPU, the one its line names.
    std::set<int> where;
    int benches = 0;
    for (const auto& [gpu, artifact] : f.rec.cand_benches)
      if (fs::path(artifact).parent_path().filename() == std::to_string(c["id"].get<int>())) {
        where.insert(gpu);
        ++benches;
      }
    CHECK(where == std::set<int>{c["gpu"].get<int>()});
    CHECK(benches >= 2);
  }
  CHECK(gpus_used.size() == 3);   // three candidates, handed to three GPUs

  // X=1 and X=2 both beat the start, measured at the same time; whichever was
  // kept second had won against an incumbent that was no longer the best, and
  // was measured again against the new one, on the same GPU.
  std::vector<nlohmann::json> stale;
  for (const auto& c : cands)
    if (c.contains("stale_wins")) stale.push_back(c);
  REQUIRE(stale.size() == 1);
  const auto& s = stale[0];
  CHECK(s["stale_wins"].size() == 1);
  CHECK(s["stale_wins"][0]["against"] == 0);
  CHECK(s["stale_wins"][0]["gpu"] == s["gpu"]);
  int first_keep = 0;
  for (const auto& c : cands)
    if (c["decision"] == "keep" && !c.contains("stale_wins")) first_keep = c["id"];
  REQUIRE(first_keep > 0);
  CHECK(s["base"] == first_keep);
  // Against X=2 (80 µs), X=1 (90 µs) loses; against X=1, X=2 wins.
  CHECK(s["decision"] == (s["tunables"]["X"] == 1 ? "discard" : "keep"));

  auto fin = of(lines, "final");
  REQUIRE(fin.size() == 1);
  CHECK(fin[0]["speedup_vs_baseline"].get<double>() == Approx(1.25).epsilon(0.02));
  int keeps = 0;
  for (const auto& c : cands) keeps += c["decision"] == "keep";
  std::string log = f.git({"log", "--format=%s", "main..autoresearch/toy-t"});
  CHECK(static_cast<int>(std::count(log.begin(), log.end(), '\n')) == keeps);
  CHECK(f.git({"-C", (f.dir.path() / ".autoresearch/runs/toy-t/worktree").string(), "status", "--porcelain"}).empty());
}

TEST_CASE("each GPU's A/A noise is measured on it and is what its candidates are judged with") {
  GpusFixture f;
  f.scripts[1].extra_noise = 0.01;   // GPU 1 is the noisier one, and shared with another process
  f.compiler.on([](const ProcessSpec& s) { return s.argv[0] == "nvidia-smi" && s.argv.size() > 2 && s.argv[2] == "1"; },
                FakeProcessRunner::exited(0, "4242, python3, 812 MiB\n"));
  int code = run_loop(f.world, f.on("0,1", {{"goal", "5x"}, {"max_iters", 3}}));
  CHECK(code == kExitStopped);
  auto lines = f.lines();
  auto lanes = of(lines, "gpu_lane");
  REQUIRE(lanes.size() == 2);
  CHECK(lanes[0]["other_processes"].empty());
  CHECK(lanes[1]["other_processes"] == nlohmann::json({"4242, python3, 812 MiB"}));
  bool warned = false;
  for (const auto& e : f.printer.events) warned = warned || e.find("GPU 1 is shared with other processes") != std::string::npos;
  CHECK(warned);
  std::map<int, double> aa;
  for (const auto& l : of(lines, "aa")) {
    REQUIRE(l["gpu"].is_number_integer());
    aa[l["gpu"].get<int>()] = l["half_width"];
  }
  REQUIRE(aa.size() == 2);
  CHECK(aa[1] > 3 * aa[0]);
  for (const auto& c : of(lines, "candidate"))
    if (c.contains("aa_half_width")) CHECK(c["aa_half_width"].get<double>() == Approx(aa[c["gpu"].get<int>()]));
}

TEST_CASE("a GPU lost mid-run is dropped with a log line; the run finishes on the others") {
  GpusFixture f;
  // GPU 2 starts (3 loads, 2 verifies, 2 A/A benches), then falls off the bus.
  f.scripts[2].fail_after = 8;
  int code = run_loop(f.world, f.on("0,1,2", {{"goal", "5x"}, {"plateau", 0}}));
  CHECK((code == kExitStopped || code == kExitOk));
  auto lines = f.lines();
  auto dropped = of(lines, "gpu_dropped");
  REQUIRE(dropped.size() == 1);
  CHECK(dropped[0]["gpu"] == 2);
  CHECK(dropped[0]["gpus_left"] == nlohmann::json({0, 1}));
  CHECK(dropped[0]["reason"].get<std::string>().find("could not be restarted") != std::string::npos);
  bool said = false, moved = false;
  for (const auto& e : f.printer.events) {
    said = said || e.find("GPU 2 dropped") != std::string::npos;
    moved = moved || (e.rfind("GPU 2: ", 0) == 0 && e.find("is judged again") != std::string::npos);
  }
  CHECK(said);
  CHECK(moved);   // it failed under a candidate, which another GPU then judged
  auto cands = of(lines, "candidate");
  REQUIRE(cands.size() >= 3);   // X=1, 2, 3 at least: the one GPU 2 held was judged elsewhere
  check_lines_complete(cands);
  check_keep_chain(cands);
  for (const auto& c : cands) {
    CHECK(c["gpu"] != 2);
    CHECK(c["decision"] != "error");
  }
  REQUIRE(of(lines, "final").size() == 1);
  // `autoresearch report` reads the new lines without stumbling.
  Report r = build_report(read_log(f.dir.path() / ".autoresearch/runs/toy-t/experiments.jsonl"));
  CHECK(!render_report_text(r, 100).empty());
}

TEST_CASE("a GPU whose harness keeps failing is dropped after --infra-failures in a row") {
  GpusFixture f;
  f.scripts[1].err_after = 8;   // after its start, every bench fails: not the candidates' doing
  int code = run_loop(f.world, f.on("0,1", {{"goal", "5x"}, {"plateau", 0}, {"infra_failures", 2}}));
  CHECK((code == kExitStopped || code == kExitOk));
  auto lines = f.lines();
  auto dropped = of(lines, "gpu_dropped");
  REQUIRE(dropped.size() == 1);
  CHECK(dropped[0]["gpu"] == 1);
  CHECK(dropped[0]["reason"].get<std::string>().find("2 infrastructure failures in a row") != std::string::npos);
  auto cands = of(lines, "candidate");
  check_lines_complete(cands);
  check_keep_chain(cands);
  // The candidates GPU 1 failed under were judged on GPU 0 (or, failed twice, logged as errors).
  for (const auto& c : cands) CHECK((c["gpu"] == 0 || c["decision"] == "error"));
  std::set<long long> judged;
  for (const auto& c : cands)
    if (c["decision"] != "error") judged.insert(c["tunables"]["X"].get<long long>());
  CHECK(judged.count(2) + judged.count(1) >= 1);
}

TEST_CASE("when every GPU is lost the run stops with exit 4 and a final line") {
  GpusFixture f;
  f.scripts[0].fail_after = 10;   // after the setup and the start of the others
  f.scripts[1].fail_after = 8;
  int code = run_loop(f.world, f.on("0,1", {{"goal", "5x"}}));
  CHECK(code == kExitInfrastructure);
  auto lines = f.lines();
  CHECK(of(lines, "gpu_dropped").size() == 2);
  auto fin = of(lines, "final");
  REQUIRE(fin.size() == 1);
  CHECK(fin[0]["stop_reason"].get<std::string>().find("every GPU was dropped") != std::string::npos);
  for (const auto& c : of(lines, "candidate")) CHECK(c["decision"] == "error");
}

TEST_CASE("a signal while several GPUs measure stops them all; every candidate judged has its whole line") {
  GpusFixture f;
  f.interrupt_at_bench = 3;   // on each GPU: its A/A at the start, its first candidate's screen, then this
  int code = run_loop(f.world, f.on("0,1", {{"goal", "5x"}, {"plateau", 0}}));
  CHECK(code == kExitInterrupted);
  auto lines = f.lines();
  auto cands = of(lines, "candidate");
  REQUIRE(!cands.empty());
  check_lines_complete(cands);
  check_keep_chain(cands);
  bool interrupted = false;
  for (const auto& c : cands) interrupted = interrupted || c["decision"] == "interrupted";
  CHECK(interrupted);
  auto fin = of(lines, "final");
  REQUIRE(fin.size() == 1);
  CHECK(fin[0]["stop_reason"] == "interrupted by a signal");
  CHECK(f.git({"-C", (f.dir.path() / ".autoresearch/runs/toy-t/worktree").string(), "status", "--porcelain"}).empty());
}

TEST_CASE("a resume goes on with the GPUs the run started with, numbering on") {
  GpusFixture f;
  int code = run_loop(f.world, f.on("0,1", {{"goal", "5x"}, {"max_iters", 2}, {"plateau", 0}}));
  CHECK(code == kExitStopped);
  REQUIRE(of(f.lines(), "candidate").size() == 2);
  RunRequest again = f.request();
  again.resume = "toy-t";
  again.overrides = {{"max_iters", 3}};
  code = run_loop(f.world, again);
  CHECK(code == kExitStopped);
  auto lines = f.lines();
  auto cands = of(lines, "candidate");
  REQUIRE(cands.size() == 3);   // never past --max-iters, though two GPUs could take more
  check_lines_complete(cands);
  check_keep_chain(cands);
  CHECK(of(lines, "gpu_lane").size() == 4);   // both GPUs, in each session
  CHECK(f.opened == std::map<int, int>{{0, 2}, {1, 2}});
  CHECK(of(lines, "final").back()["stop_reason"] == "--max-iters 3 reached");
}

TEST_CASE("one GPU given to --gpus is --gpu: the single-GPU loop and log") {
  GpusFixture f;
  int code = run_loop(f.world, f.on("3", {{"goal", "1.2x"}, {"max_iters", 4}}));
  CHECK(code == kExitOk);
  auto header = read_log(f.dir.path() / ".autoresearch/runs/toy-t/experiments.jsonl").header;
  CHECK(!header.contains("gpus"));
  CHECK(header["config"]["gpu"] == 3);
  CHECK(f.opened == std::map<int, int>{{3, 1}});
  CHECK(of(f.lines(), "gpu_lane").empty());
  for (const auto& c : of(f.lines(), "candidate")) CHECK(!c.contains("gpu"));
}

TEST_CASE("several GPUs are refused for what they cannot do, before anything changes") {
  auto refused = [](Fixture& f, const RunRequest& req, const std::string& says) {
    CHECK_THROWS_WITH(run_loop(f.world, req), Catch::Contains(says));
    CHECK(f.git({"branch", "--list", "autoresearch/*"}).empty());
  };
  SECTION("a text agent") {
    GpusFixture f;
    refused(f, f.on("0,1", {{"agent", "command"}, {"agent_cmd", "true"}}), "needs --agent tune");
  }
  SECTION("--gpu as well") {
    GpusFixture f;
    auto req = f.on("0,1");
    req.overrides = {{"gpu", 1}};
    refused(f, req, "--gpu and --gpus are exclusive");
  }
  SECTION("a CPU package") {
    Fixture f;   // the scripted harness reports a CPU device
    auto req = f.request();
    req.gpus = "0,1";
    refused(f, req, "CUDA packages only");
  }
  SECTION("a GPU another run measures on") {
    GpusFixture f;
    std::string holder;
    auto other = FileLock::try_acquire(f.locks.path() / "gpu1.lock", "run other", &holder);
    REQUIRE(other);
    refused(f, f.on("0,1"), "gpu1 is being measured by another run");
  }
  SECTION("a list that is not one") {
    GpusFixture f;
    refused(f, f.on("0,x"), "'x' is not a GPU index");
  }
}

TEST_CASE("the GPU list parses indices and all, and names what is wrong") {
  GpuLister host = [](std::string*) { return std::optional<std::vector<int>>({0, 1, 2, 3}); };
  CHECK(parse_gpu_list("0,1,3", host) == std::vector<int>{0, 1, 3});
  CHECK(parse_gpu_list(" 2 , 0 ", host) == std::vector<int>{2, 0});
  CHECK(parse_gpu_list("all", host) == std::vector<int>{0, 1, 2, 3});
  CHECK_THROWS_WITH(parse_gpu_list("0,0", host), Catch::Contains("GPU 0 is listed twice"));
  CHECK_THROWS_WITH(parse_gpu_list("", host), Catch::Contains("--gpus: empty"));
  CHECK_THROWS_WITH(parse_gpu_list("0,,1", host), Catch::Contains("'(empty)' is not a GPU index"));
  CHECK_THROWS_WITH(parse_gpu_list("1,", host), Catch::Contains("is not a GPU index"));
  CHECK_THROWS_WITH(parse_gpu_list("-1", host), Catch::Contains("'-1' is not a GPU index"));
  CHECK_THROWS_WITH(parse_gpu_list("1.5", host), Catch::Contains("'1.5' is not a GPU index"));
  CHECK_THROWS_WITH(parse_gpu_list("gpu0", host), Catch::Contains("'gpu0' is not a GPU index"));
  CHECK_THROWS_WITH(parse_gpu_list("99999999999", host), Catch::Contains("is not a GPU index"));
  GpuLister none = [](std::string*) { return std::optional<std::vector<int>>(std::vector<int>{}); };
  CHECK_THROWS_WITH(parse_gpu_list("all", none), Catch::Contains("has no GPU"));

  FakeProcessRunner r;
  r.on("nvidia-smi", FakeProcessRunner::not_found("nvidia-smi"));
  GpuLister missing = [&r](std::string* why) { return host_gpu_indices(r, why); };
  CHECK_THROWS_WITH(parse_gpu_list("all", missing), Catch::Contains("nvidia-smi is not installed"));
  FakeProcessRunner smi;
  smi.on("nvidia-smi", FakeProcessRunner::exited(0, "0\n1\n"));
  std::string why;
  CHECK(host_gpu_indices(smi, &why) == std::vector<int>{0, 1});
  smi.on("nvidia-smi", FakeProcessRunner::exited(0, "1234, python3, 800 MiB\n"));
  CHECK(other_gpu_processes(smi, 1, &why) == std::vector<std::string>{"1234, python3, 800 MiB"});
  CHECK(smi.calls().back().argv[2] == "1");
}
