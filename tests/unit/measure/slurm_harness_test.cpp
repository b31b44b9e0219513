// The SLURM executor against a fake srun/scontrol/scancel (shell scripts that
// keep each job's state in a folder) and a fake harness (a shell script that
// speaks the protocol): the command line, one job per step, the reloads in a
// new job, the re-queue of cancelled and unstartable jobs and its bound, and
// that nothing the jobs started is left running. The real cluster is the e2e
// test's (tests/e2e/e2e_slurm_test.cpp).
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

#include "autoresearch/measure/slurm_harness.h"
#include "catch.h"
#include "unit/fakes/temp_dir.h"

using namespace ar;
namespace fs = std::filesystem;

namespace {

const char* kFakeSrun = R"SH(#!/bin/bash
# A fake srun: one job id per call, the command after -- as its one task.
d="$FAKE_SLURM_DIR"
printf '%s\n' "$*" >> "$d/srun.log"
id=$(cat "$d/next_id" 2>/dev/null || echo 100)
echo $((id + 1)) > "$d/next_id"
left=$(cat "$d/fail_starts" 2>/dev/null || echo 0)
if [ "$left" -gt 0 ]; then
  echo $((left - 1)) > "$d/fail_starts"
  echo "srun: error: Unable to allocate resources: fake node down" >&2
  exit 1
fi
while [ $# -gt 0 ] && [ "$1" != "--" ]; do shift; done
shift
export SLURM_JOB_ID=$id SLURMD_NODENAME=fakenode
# A job's state file is replaced whole (written beside, then renamed), as the controller answers
# whole: the driver's scontrol may read it at any moment, and a truncated file is no state at all.
set_state() { echo "$2" > "$d/job_$1.$$" && mv -f "$d/job_$1.$$" "$d/job_$1"; }
set_state "$id" "JobState=RUNNING Reason=None ExitCode=0:0"
"$@" <&0 &
child=$!
echo $child > "$d/pid_$id"
wait $child
rc=$?
if grep -q RUNNING "$d/job_$id"; then
  st=COMPLETED; [ $rc -eq 0 ] || st=FAILED
  code=$rc; sig=0
  if [ $rc -gt 128 ]; then code=0; sig=$((rc - 128)); fi
  set_state "$id" "JobState=$st Reason=None ExitCode=$code:$sig"
fi
exit $rc
)SH";

const char* kFakeScontrol = R"SH(#!/bin/bash
d="$FAKE_SLURM_DIR"; id="${@: -1}"
[ -f "$d/job_$id" ] || { echo "slurm_load_jobs error: Invalid job id specified" >&2; exit 1; }
echo "JobId=$id JobName=fake $(cat "$d/job_$id")"
)SH";

const char* kFakeScancel = R"SH(#!/bin/bash
d="$FAKE_SLURM_DIR"; id="$1"
echo "$id" >> "$d/scancel.log"
[ -f "$d/job_$id" ] || { echo "scancel: error: Invalid job id $id" >&2; exit 1; }
if grep -q RUNNING "$d/job_$id"; then
  # As slurmctld: COMPLETING while the tasks are signalled, then CANCELLED. The
  # later state comes from a session of its own, as the controller is: no kill
  # of srun's group or of this script's reaches it (started, and out of both,
  # before the task is signalled).
  rm -f "$d/detached_$id"
  setsid bash -c "touch '$d/detached_$id'; sleep 0.5; echo 'JobState=CANCELLED Reason=None ExitCode=0:15' > '$d/job_$id.c' && mv -f '$d/job_$id.c' '$d/job_$id'" \
    </dev/null >/dev/null 2>&1 &
  for _ in $(seq 1 100); do [ -f "$d/detached_$id" ] && break; sleep 0.02; done
  echo "JobState=COMPLETING Reason=None ExitCode=0:15" > "$d/job_$id.s" && mv -f "$d/job_$id.s" "$d/job_$id"
  kill -TERM "$(cat "$d/pid_$id")" 2>/dev/null
fi
exit 0
)SH";

const char* kFakeSacct = R"SH(#!/bin/bash
echo "sacct: error: Slurm accounting storage is disabled" >&2; exit 1
)SH";

// Control files in $FAKE_SLURM_DIR: cancel_verifies (the next N verifies have
// their job cancelled, as by an administrator), crash_verify, hang_verify.
const char* kFakeHarness = R"SH(#!/bin/bash
d="$FAKE_SLURM_DIR"
while IFS= read -r line; do
  echo "$SLURM_JOB_ID $line" >> "$d/requests.log"
  slot=$(echo "$line" | sed -nE 's/.*"slot":"([^"]*)".*/\1/p')
  case "$line" in
    *'"cmd":"hello"'*) echo '{"ok":true,"protocol":1,"device":{"name":"fake cpu"}}' ;;
    *'"cmd":"quit"'*) echo '{"ok":true}'; exit 0 ;;
    *'"cmd":"load"'*)
      case "$line" in
        *bad*) echo '{"ok":false,"kind":"load_error","error":"not a shared object","slot":"'"$slot"'"}' ;;
        *) echo '{"ok":true,"slot":"'"$slot"'"}' ;;
      esac ;;
    *'"cmd":"verify"'*)
      left=$(cat "$d/cancel_verifies" 2>/dev/null || echo 0)
      if [ "$left" -gt 0 ]; then
        echo $((left - 1)) > "$d/cancel_verifies"
        "$d/scancel" "$SLURM_JOB_ID" </dev/null >/dev/null 2>&1
        exec sleep 30
      fi
      if [ -f "$d/partial_then_cancel" ]; then
        rm "$d/partial_then_cancel"
        printf '{"distributions":[{"name":"ran'   # half a reply, as when srun forwards a write cut short
        "$d/scancel" "$SLURM_JOB_ID" </dev/null >/dev/null 2>&1
        exec sleep 30
      fi
      [ -f "$d/crash_verify" ] && kill -SEGV $$
      [ -f "$d/hang_verify" ] && exec sleep 30
      echo '{"ok":true,"pass":true,"slot":"'"$slot"'"}' ;;
    *) echo '{"ok":false,"kind":"bad_request","error":"unknown","slot":""}' ;;
  esac
done
)SH";

void write_script(const fs::path& p, const char* text) {
  std::ofstream(p) << text;
  fs::permissions(p, fs::perms::owner_all);
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void put(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

struct FakeCluster {
  TempDir dir;
  SlurmSettings s;
  RealProcessRunner runner;
  fs::path harness = dir / "harness";

  FakeCluster() {
    for (auto [name, text] : {std::pair{"srun", kFakeSrun}, {"scontrol", kFakeScontrol}, {"scancel", kFakeScancel},
                              {"sacct", kFakeSacct}, {"harness", kFakeHarness}})
      write_script(dir / name, text);
    setenv("FAKE_SLURM_DIR", dir.path().c_str(), 1);
    s.srun = (dir / "srun").string();
    s.scontrol = (dir / "scontrol").string();
    s.scancel = (dir / "scancel").string();
    s.sacct = (dir / "sacct").string();
    s.partition = "gpu";
    s.job_name = "ar-test";
    s.max_requeues = 2;
    s.start_timeout = std::chrono::seconds(20);
  }
  std::unique_ptr<Harness> open() { return make_slurm_harness(harness, s, runner, nullptr); }
  // The requests job `id` received, in order ("load cand", "verify inc", ...).
  std::vector<std::string> requests_of(long long id) {
    std::vector<std::string> out;
    std::istringstream in(slurp(dir / "requests.log"));
    std::string line;
    while (std::getline(in, line)) {
      auto space = line.find(' ');
      if (line.substr(0, space) != std::to_string(id)) continue;
      auto j = nlohmann::json::parse(line.substr(space + 1));
      std::string cmd = j.value("cmd", "");
      out.push_back(j.contains("slot") ? cmd + " " + j["slot"].get<std::string>() : cmd);
    }
    return out;
  }
  // The fake job's task has exited (nothing of it runs on; a zombie waiting
  // for init to reap it runs nothing). Its group was killed a moment ago at most.
  bool task_gone(long long id) {
    std::ifstream in(dir / ("pid_" + std::to_string(id)));
    pid_t pid = 0;
    if (!(in >> pid)) return true;
    for (int i = 0; i < 40; ++i) {
      if (::kill(pid, 0) != 0) return true;
      std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
      auto paren = stat.rfind(')');
      if (paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z') return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
};

nlohmann::json load(const std::string& slot, const std::string& artifact) {
  return {{"cmd", "load"}, {"slot", slot}, {"artifact", artifact}};
}
nlohmann::json verify(const std::string& slot) { return {{"cmd", "verify"}, {"slot", slot}}; }
constexpr std::chrono::seconds kCall{20};

std::vector<long long> job_ids(const nlohmann::json& record) {
  std::vector<long long> out;
  for (const auto& j : record["jobs"]) out.push_back(j["id"].get<long long>());
  return out;
}

}  // namespace

TEST_CASE("srun runs the harness as one task with the config's partition, account, limit, gres and options",
          "[slurm]") {
  SlurmSettings s;
  s.partition = "h200";
  s.account = "kernels";
  s.time_limit = "1:00:00";
  s.gres = "gpu:1";
  s.job_name = "ar-matmul";
  s.extra = {"--constraint=sxm", "--qos=low"};
  auto a = srun_argv(s, "/shared/runs/x/harness");
  auto has = [&](const std::string& x) { return std::find(a.begin(), a.end(), x) != a.end(); };
  CHECK(a.front() == "srun");
  for (const char* x : {"--job-name=ar-matmul", "--nodes=1", "--ntasks=1", "--kill-on-bad-exit=1", "--partition=h200",
                        "--account=kernels", "--time=1:00:00", "--gres=gpu:1", "--constraint=sxm", "--qos=low"})
    CHECK(has(x));
  // The options end before the command; the harness sees only the GPU SLURM gave the job.
  auto dashdash = std::find(a.begin(), a.end(), "--");
  REQUIRE(dashdash != a.end());
  CHECK(std::find(a.begin(), dashdash, "--qos=low") != dashdash);
  std::vector<std::string> tail(a.end() - 3, a.end());
  CHECK(tail == std::vector<std::string>{"/shared/runs/x/harness", "--gpu", "0"});

  SlurmSettings cpu;   // a CPU package: no gres, no partition (the default one)
  cpu.unset_env = {"SLURM_JOB_ID"};
  auto b = srun_argv(cpu, "/h");
  CHECK(std::none_of(b.begin(), b.end(), [](const std::string& x) { return x.rfind("--gres", 0) == 0; }));
  CHECK(std::none_of(b.begin(), b.end(), [](const std::string& x) { return x.rfind("--partition", 0) == 0; }));
  // Inside an allocation, srun would start a step of the driver's job: its variables go.
  CHECK(std::vector<std::string>(b.begin(), b.begin() + 4) == std::vector<std::string>{"env", "-u", "SLURM_JOB_ID", "srun"});
}

TEST_CASE("what scontrol, sacct and srun say about a job is read", "[slurm]") {
  auto st = parse_scontrol_job("JobId=8 JobName=t5 UserId=root(0) JobState=CANCELLED Reason=None Dependency=(null) "
                               "Requeue=1 Restarts=0 BatchFlag=0 Reboot=0 ExitCode=0:15 RunTime=00:00:02");
  REQUIRE(st);
  CHECK(st->state == "CANCELLED");
  CHECK(st->signal == 15);
  CHECK(slurm_state_is_outside(st->state));
  auto failed = parse_scontrol_job("JobId=7 JobState=FAILED Reason=NonZeroExitCode ExitCode=0:11");
  REQUIRE(failed);
  CHECK(!slurm_state_is_outside(failed->state));
  CHECK(failed->reason == "NonZeroExitCode");
  CHECK(!parse_scontrol_job("slurm_load_jobs error: Invalid job id specified"));
  CHECK(slurm_state_is_transient("COMPLETING"));
  CHECK(!slurm_state_is_transient("TIMEOUT"));
  CHECK(slurm_state_is_outside("TIMEOUT"));
  CHECK(slurm_state_is_outside("PREEMPTED"));
  CHECK(slurm_state_is_outside("NODE_FAIL"));

  auto acct = parse_sacct_job("CANCELLED by 1000|0:15\n");
  REQUIRE(acct);
  CHECK(acct->state == "CANCELLED");
  CHECK(acct->reason == "by 1000");
  CHECK(acct->signal == 15);
  CHECK(!parse_sacct_job(""));

  CHECK(ending_in_stderr("slurmstepd-vm: error: *** STEP 8.0 ON vm CANCELLED AT 2026-12-01T15:19:36 ***") ==
        std::optional<std::string>("CANCELLED"));
  CHECK(ending_in_stderr("slurmstepd: error: *** JOB 9 ON gpu3 CANCELLED AT 2026-12-01T15:19:36 DUE TO TIME LIMIT ***") ==
        std::optional<std::string>("TIMEOUT"));
  CHECK(ending_in_stderr("slurmstepd: error: *** JOB 9 ON gpu3 CANCELLED AT 2026-12-01T15:19:36 DUE TO PREEMPTION ***") ==
        std::optional<std::string>("PREEMPTED"));
  CHECK(!ending_in_stderr("srun: error: vm: task 0: Segmentation fault"));

  std::string node;
  CHECK(job_id_in_stderr("srun: job 42 queued and waiting for resources\nautoresearch-slurm-job 42 gpu07\n", &node) == 42);
  CHECK(node == "gpu07");
  CHECK(job_id_in_stderr("srun: job 43 queued and waiting for resources\n") == 43);
  CHECK(job_id_in_stderr("srun: error: Unable to allocate resources: Invalid partition name specified") == 0);
}

TEST_CASE("each step is one job: the next request starts another and reloads the slots it needs", "[slurm]") {
  FakeCluster c;
  auto h = c.open();
  std::string err;
  auto dev = h->start(&err);
  REQUIRE(dev);
  CHECK((*dev)["name"] == "fake cpu");
  CHECK((*dev)["slurm_node"] == "fakenode");
  REQUIRE(h->call(load("inc", "/shared/inc.so"), kCall).ok());
  REQUIRE(h->call(load("aa", "/shared/inc.so"), kCall).ok());
  REQUIRE(h->call(verify("inc"), kCall).ok());
  h->end_step();
  auto first = h->take_record();
  REQUIRE(job_ids(first) == std::vector<long long>{100});
  CHECK(first["jobs"][0]["state"] == "COMPLETED");   // it ended by itself (quit), not by a cancel
  CHECK(first["jobs"][0]["node"] == "fakenode");
  CHECK(first["requeues"] == 0);
  CHECK(c.task_gone(100));
  CHECK(h->take_record().is_null());   // nothing ran since

  // Between steps a load waits for the job that needs it.
  REQUIRE(h->call(load("cand", "/shared/cand.so"), kCall).ok());
  CHECK(!fs::exists(c.dir / "job_101"));
  REQUIRE(h->call(verify("cand"), kCall).ok());
  REQUIRE(h->call(verify("inc"), kCall).ok());
  h->end_step();
  CHECK(c.requests_of(101) == std::vector<std::string>{"hello", "load cand", "verify cand", "load inc", "verify inc", "quit"});
  CHECK(job_ids(h->take_record()) == std::vector<long long>{101});
  CHECK(c.task_gone(101));
  CHECK(!fs::exists(c.dir / "scancel.log"));   // every job ended on its own
  std::string argv = slurp(c.dir / "srun.log");
  CHECK(argv.find("--partition=gpu") != std::string::npos);
  CHECK(argv.find("--job-name=ar-test") != std::string::npos);
  CHECK(argv.find("--kill-on-bad-exit=1") != std::string::npos);
}

TEST_CASE("a job cancelled in the middle of a request is re-queued: a new job, the slot reloaded, the answer given",
          "[slurm]") {
  FakeCluster c;
  auto h = c.open();
  std::string err;
  REQUIRE(h->start(&err));
  REQUIRE(h->call(load("cand", "/shared/cand.so"), kCall).ok());
  put(c.dir / "cancel_verifies", "1");
  auto r = h->call(verify("cand"), kCall);
  INFO(r.message);
  REQUIRE(r.ok());
  CHECK(c.requests_of(101) == std::vector<std::string>{"hello", "load cand", "verify cand"});
  h->end_step();
  auto rec = h->take_record();
  CHECK(job_ids(rec) == std::vector<long long>{100, 101});
  CHECK(rec["requeues"] == 1);
  CHECK(rec["jobs"][0]["state"] == "CANCELLED");
  CHECK(rec["jobs"][0]["ended"] == "by the cluster");
  CHECK(rec["jobs"][0]["requeued"] == true);
  CHECK(rec["jobs"][1]["state"] == "COMPLETED");
  CHECK(c.task_gone(100));
  CHECK(c.task_gone(101));
}

// Found on the one-node cluster: a job cancelled while the harness wrote its
// reply left half a line on srun's stdout, which was taken for a harness
// sending garbage and blamed on the candidate as a crash.
TEST_CASE("half a reply from a job the cluster cancelled is the job's end, and re-queued", "[slurm]") {
  FakeCluster c;
  auto h = c.open();
  std::string err;
  REQUIRE(h->start(&err));
  REQUIRE(h->call(load("cand", "/shared/cand.so"), kCall).ok());
  put(c.dir / "partial_then_cancel", "");
  auto r = h->call(verify("cand"), kCall);
  INFO(r.message);
  REQUIRE(r.ok());
  CHECK(r.body["pass"] == true);
  auto rec = h->take_record();
  CHECK(rec["requeues"] == 1);
  CHECK(rec["jobs"][0]["state"] == "CANCELLED");
  CHECK(rec["jobs"][0]["ended"] == "by the cluster");
  h->end_step();
}

TEST_CASE("re-queues are bounded per step; then the request fails as killed from outside", "[slurm]") {
  FakeCluster c;
  auto h = c.open();
  std::string err;
  REQUIRE(h->start(&err));
  REQUIRE(h->call(load("cand", "/shared/cand.so"), kCall).ok());
  put(c.dir / "cancel_verifies", "10");
  auto r = h->call(verify("cand"), kCall);
  CHECK(r.status == HarnessReply::Status::Crashed);
  CHECK(killed_from_outside(r.signal));   // the loop's infrastructure rule, never the candidate's crash
  CHECK(r.message.find("re-queue(s) are spent") != std::string::npos);
  // The same step gets no more jobs: a restart is refused.
  CHECK(!h->start(&err));
  CHECK(err.find("spent") != std::string::npos);
  auto rec = h->take_record();
  CHECK(job_ids(rec) == std::vector<long long>{100, 101, 102});
  CHECK(rec["requeues"] == 2);
  CHECK(rec["jobs"][2]["requeued"] == false);
  for (long long id : {100, 101, 102}) CHECK(c.task_gone(id));

  // The next step starts afresh, with the slot it needs.
  h->end_step();
  put(c.dir / "cancel_verifies", "0");
  REQUIRE(h->call(verify("cand"), kCall).ok());
  CHECK(c.requests_of(103) == std::vector<std::string>{"hello", "load cand", "verify cand"});
  h->end_step();
}

TEST_CASE("a job that does not start is re-queued, within the bound, with srun's reason", "[slurm]") {
  FakeCluster c;
  put(c.dir / "fail_starts", "2");
  auto h = c.open();
  std::string err;
  REQUIRE(h->start(&err));
  auto rec = h->take_record();   // the two that failed
  CHECK(rec["requeues"] == 2);
  CHECK(rec["jobs"].size() == 2);
  h->end_step();
  CHECK(job_ids(h->take_record()) == std::vector<long long>{102});

  put(c.dir / "fail_starts", "5");
  CHECK(!h->start(&err));
  CHECK(err.find("Unable to allocate resources: fake node down") != std::string::npos);
  CHECK(err.find("2 re-queue(s)") != std::string::npos);
}

TEST_CASE("the harness's own crash in a job is not re-queued, and a hang is killed and its job cancelled", "[slurm]") {
  FakeCluster c;
  auto h = c.open();
  std::string err;
  REQUIRE(h->start(&err));
  REQUIRE(h->call(load("cand", "/shared/cand.so"), kCall).ok());
  put(c.dir / "crash_verify", "");
  auto r = h->call(verify("cand"), kCall);
  CHECK(r.status == HarnessReply::Status::Crashed);
  CHECK(r.signal == SIGSEGV);
  CHECK(!killed_from_outside(r.signal));   // the candidate's crash
  auto rec = h->take_record();
  CHECK(rec["requeues"] == 0);
  CHECK(rec["jobs"][0]["state"] == "FAILED");
  fs::remove(c.dir / "crash_verify");

  REQUIRE(h->start(&err));   // the loop's restart after a crash: job 101
  REQUIRE(h->call(load("cand", "/shared/cand.so"), kCall).ok());
  put(c.dir / "hang_verify", "");
  r = h->call(verify("cand"), std::chrono::seconds(1));
  CHECK(r.status == HarnessReply::Status::TimedOut);
  CHECK(slurp(c.dir / "scancel.log").find("101") != std::string::npos);
  CHECK(c.task_gone(101));
  rec = h->take_record();
  CHECK(rec["jobs"].back()["ended"] == "killed by the driver: no answer in time");
}

TEST_CASE("a deferred load that fails in the job answers as the load would have", "[slurm]") {
  FakeCluster c;
  auto h = c.open();
  REQUIRE(h->call(load("cand", "/shared/bad.so"), kCall).ok());   // no job yet: remembered
  auto r = h->call(verify("cand"), kCall);
  CHECK(r.status == HarnessReply::Status::Error);
  CHECK(r.kind() == "load_error");   // the artifact's fault, as when loaded at once
  h->end_step();
}
