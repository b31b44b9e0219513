// `autoresearch run --executor slurm` against a real SLURM (the one-node
// cluster of scripts/ci/start_slurm.sh), on the CPU package: every candidate
// is measured in SLURM jobs the log names, SLURM knows those jobs, a job
// cancelled mid-run (scancel) is re-queued with the log kept whole, the run
// resumes, and nothing of the jobs is left running. Hidden ([.]): ctest runs
// them as `e2e_slurm` through slurm_available.sh, which skips where SLURM is
// absent (and fails instead under CI=true).
#include <unistd.h>

#include <fstream>
#include <set>
#include <thread>

#include "catch.h"
#include "e2e_support.h"

using e2e::of_type;
using e2e::read_log;
using e2e::run_cli;
using e2e::TempRepo;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> args(std::vector<std::string> a) {
  for (const char* x : {"--config", AR_SOURCE_DIR "/configs/quick.json", "--agent", "tune", "--seed", "7",
                        "--executor", "slurm", "--slurm-time", "20"})
    a.push_back(x);
  return a;
}

std::string sh(const std::vector<std::string>& argv) {
  ar::RealProcessRunner r;
  ar::ProcessSpec s;
  s.argv = argv;
  s.timeout = std::chrono::seconds(60);
  auto out = r.run(s);
  return out.out + out.err;
}

std::string job_name(const std::string& what) { return "ar-e2e-" + what + "-" + std::to_string(getpid()); }

// Jobs of that name SLURM still has queued or running.
std::string queued(const std::string& name) { return sh({"squeue", "-h", "-n", name, "-o", "%i %T"}); }

std::string hostname_s() {
  std::string h = sh({"hostname", "-s"});
  while (!h.empty() && (h.back() == '\n' || h.back() == ' ')) h.pop_back();
  return h;
}

// What of the jobs could still run here: the harness (built in the tests'
// cache) and slurmstepd of the given jobs ("slurmstepd: [20.0]").
std::vector<std::string> job_processes(const std::vector<long long>& jobs) {
  std::vector<std::string> out;
  const std::string harness = std::string(AR_E2E_CACHE) + "/harness/";
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::string pid = e.path().filename();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "cmdline");
    std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (char& c : cmd)
      if (c == '\0') c = ' ';
    bool ours = cmd.find(harness) != std::string::npos;
    for (long long id : jobs) ours = ours || cmd.find("slurmstepd: [" + std::to_string(id) + ".") != std::string::npos;
    if (ours) out.push_back(pid + ": " + cmd);
  }
  return out;
}

std::vector<long long> jobs_of(const nlohmann::json& line) {
  std::vector<long long> ids;
  if (!line.contains("slurm")) return ids;
  for (const auto& j : line["slurm"]["jobs"]) ids.push_back(j["id"].get<long long>());
  return ids;
}

// Every candidate line is whole and the ids run 1..n.
void check_candidates_complete(const std::vector<nlohmann::json>& candidates) {
  for (size_t i = 0; i < candidates.size(); ++i) {
    const auto& c = candidates[i];
    INFO(c.dump());
    CHECK(c["id"] == static_cast<int>(i + 1));
    for (const char* k : {"decision", "reason", "finished", "slurm", "phases"}) CHECK(c.contains(k));
    CHECK(!jobs_of(c).empty());
  }
}

}  // namespace

TEST_CASE("under --executor slurm every candidate is measured in SLURM jobs the log names", "[.][slurm]") {
  TempRepo repo({"matmul_cpu"});
  std::string name = job_name("run");
  auto r = run_cli(repo, args({"run", "--kernel", "matmul_cpu", "--max-iters", "3", "--tag", "slurm",
                               "--slurm-job-name", name}));
  INFO(r.err);
  REQUIRE((r.exit_code == 0 || r.exit_code == 3));
  fs::path run_dir = repo.dir / ".autoresearch/runs/matmul_cpu-slurm";
  auto lines = read_log(run_dir / "experiments.jsonl");
  CHECK(lines.at(0)["config"]["executor"] == "slurm");
  auto aa = of_type(lines, "aa");
  REQUIRE(!aa.empty());
  auto candidates = of_type(lines, "candidate");
  REQUIRE(candidates.size() == 3);
  check_candidates_complete(candidates);

  // One job (at least) per step, none shared between steps, each known to SLURM
  // under the run's job name, finished by itself, on this node, with no GPU asked for.
  std::set<long long> seen;
  std::string node = hostname_s();
  std::vector<nlohmann::json> steps = aa;
  steps.insert(steps.end(), candidates.begin(), candidates.end());
  for (const auto& step : steps) {
    INFO(step.dump());
    REQUIRE(!jobs_of(step).empty());
    CHECK(step["slurm"]["requeues"] == 0);
    for (const auto& j : step["slurm"]["jobs"]) {
      long long id = j["id"];
      CHECK(seen.insert(id).second);
      CHECK(j["state"] == "COMPLETED");
      CHECK(j["node"] == node);
      std::string info = sh({"scontrol", "show", "job", "-o", std::to_string(id)});
      INFO(info);
      CHECK(info.find("JobName=" + name) != std::string::npos);
      CHECK(info.find("JobState=COMPLETED") != std::string::npos);
      CHECK(info.find("gres") == std::string::npos);   // a CPU package asks for no GPU
    }
  }
  CHECK(queued(name).empty());
  CHECK(job_processes(std::vector<long long>(seen.begin(), seen.end())).empty());
}

TEST_CASE("a job cancelled mid-run is re-queued, the log stays whole, and the run resumes", "[.][slurm]") {
  TempRepo repo({"matmul_cpu"});
  std::string name = job_name("cancel");
  fs::path run_dir = repo.dir / ".autoresearch/runs/matmul_cpu-cancel";
  fs::path log = run_dir / "experiments.jsonl";
  long long victim = 0;
  {
    e2e::Background bg(repo, args({"run", "--kernel", "matmul_cpu", "--max-iters", "3", "--tag", "cancel",
                                   "--slurm-job-name", name}));
    // Setup (the baseline and its A/A noise) is done: the next job is candidate #1's.
    REQUIRE(e2e::wait_until([&] { return fs::exists(log) && !of_type(read_log(log), "aa").empty(); }, 600));
    long long aa_job = jobs_of(of_type(read_log(log), "aa").at(0)).at(0);
    REQUIRE(e2e::wait_until(
        [&] {
          std::string q = sh({"squeue", "-h", "-n", name, "-t", "RUNNING", "-o", "%i"});
          victim = std::atoll(q.c_str());
          return victim > aa_job;
        },
        120));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));   // mid-request, not before the hello
    // The check for strays sees a job's processes while it runs (so its silence later means something).
    CHECK(!job_processes({victim}).empty());
    sh({"scancel", std::to_string(victim)});
    int code = bg.wait(900);
    REQUIRE((code == 0 || code == 3));
  }
  auto lines = read_log(log);
  auto candidates = of_type(lines, "candidate");
  REQUIRE(candidates.size() == 3);
  check_candidates_complete(candidates);
  REQUIRE(of_type(lines, "final").size() == 1);

  // The cancelled job is in the line of the candidate it measured, re-queued:
  // the candidate was judged in the next job, not blamed for the cancel.
  bool found = false;
  for (const auto& c : candidates) {
    for (const auto& j : c["slurm"]["jobs"]) {
      if (j["id"] != victim) continue;
      found = true;
      INFO(c.dump());
      CHECK(j["state"] == "CANCELLED");
      CHECK(j["ended"] == "by the cluster");
      CHECK(j["requeued"] == true);
      CHECK(c["slurm"]["requeues"].get<int>() >= 1);
      CHECK(c["slurm"]["jobs"].back()["state"] == "COMPLETED");
      CHECK(c["decision"] != "crash");
      CHECK(c["decision"] != "error");
    }
  }
  CHECK(found);
  CHECK(sh({"scontrol", "show", "job", "-o", std::to_string(victim)}).find("JobState=CANCELLED") != std::string::npos);
  CHECK(queued(name).empty());
  std::vector<long long> all;
  for (const auto& c : candidates)
    for (long long id : jobs_of(c)) all.push_back(id);
  CHECK(job_processes(all).empty());

  // The run goes on from where it stopped, its new candidate in a job of its own.
  auto r = run_cli(repo, args({"run", "--resume", "matmul_cpu-cancel", "--max-iters", "4"}));
  INFO(r.err);
  REQUIRE((r.exit_code == 0 || r.exit_code == 3));
  auto after = of_type(read_log(log), "candidate");
  REQUIRE(after.size() == 4);
  check_candidates_complete(after);
  CHECK(queued(name).empty());
  CHECK(job_processes(jobs_of(after.back())).empty());
}

TEST_CASE("with no re-queue left a cancelled job is an infrastructure failure, not the candidate's", "[.][slurm]") {
  TempRepo repo({"matmul_cpu"});
  std::string name = job_name("infra");
  fs::path log = repo.dir / ".autoresearch/runs/matmul_cpu-infra/experiments.jsonl";
  long long victim = 0;
  {
    e2e::Background bg(repo, args({"run", "--kernel", "matmul_cpu", "--max-iters", "2", "--tag", "infra",
                                   "--slurm-job-name", name, "--slurm-requeues", "0"}));
    REQUIRE(e2e::wait_until([&] { return fs::exists(log) && !of_type(read_log(log), "aa").empty(); }, 600));
    long long aa_job = jobs_of(of_type(read_log(log), "aa").at(0)).at(0);
    REQUIRE(e2e::wait_until(
        [&] {
          victim = std::atoll(sh({"squeue", "-h", "-n", name, "-t", "RUNNING", "-o", "%i"}).c_str());
          return victim > aa_job;
        },
        120));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    sh({"scancel", std::to_string(victim)});
    int code = bg.wait(900);
    REQUIRE((code == 0 || code == 3));   // one infrastructure failure is not --infra-failures (3) in a row
  }
  auto candidates = of_type(read_log(log), "candidate");
  REQUIRE(candidates.size() == 2);
  check_candidates_complete(candidates);
  const auto& first = candidates[0];
  INFO(first.dump());
  CHECK(first["decision"] == "error");
  CHECK(first["reason"].get<std::string>().find("re-queue(s) are spent") != std::string::npos);
  CHECK(first["slurm"]["requeues"] == 0);
  CHECK(first["slurm"]["jobs"][0]["id"] == victim);
  CHECK(first["slurm"]["jobs"][0]["state"] == "CANCELLED");
  CHECK(first["slurm"]["jobs"][0]["requeued"] == false);
  // The next step has its re-queues back and is judged normally.
  CHECK(candidates[1]["decision"] != "error");
  CHECK(candidates[1]["slurm"]["jobs"].back()["state"] == "COMPLETED");
  CHECK(queued(name).empty());
  CHECK(job_processes({victim}).empty());
}

TEST_CASE("bad executor options are refused with a message before anything runs", "[slurm-usage]") {
  TempRepo repo({"matmul_cpu"});
  auto bad = [&](std::vector<std::string> extra, const std::string& says) {
    std::vector<std::string> a = {"run", "--kernel", "matmul_cpu", "--max-iters", "1"};
    a.insert(a.end(), extra.begin(), extra.end());
    auto r = run_cli(repo, a, 120);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(says) != std::string::npos);
  };
  bad({"--executor", "pbs"}, "--executor: 'pbs' (expected local or slurm)");
  bad({"--executor", "slurm", "--slurm-time", "1h"}, "--slurm-time: '1h' is not a SLURM time limit");
  bad({"--executor", "slurm", "--slurm-requeues", "-1"}, "--slurm-requeues must be >= 0");
  bad({"--executor", "slurm", "--slurm-option=--ntasks=4"}, "--slurm-option: '--ntasks=4' is set by autoresearch");
  bad({"--executor", "slurm", "--slurm-option=constraint"}, "is not an srun option");
  bad({"--executor", "slurm", "--gpu", "1"}, "each job gets its GPU from SLURM");
  CHECK(!fs::exists(repo.dir / ".autoresearch/runs"));
}
