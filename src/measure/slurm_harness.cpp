// The harness as one SLURM job per measurement step (slurm_harness.h says the
// contract). The protocol is the local one; what differs is where the process
// lives: a job can be ended by the cluster at any time, and a new job has none
// of the old one's slots, so this class remembers which artifact sits in which
// slot and reloads, in a new job, what the next request needs.
#include <cmath>
#include <csignal>
#include <cstdio>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "autoresearch/measure/slurm_harness.h"

namespace ar {

namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr seconds kLoadTimeout{60};
// srun waits up to KillWait (30 s by default) for a step's tasks after a cancel.
constexpr seconds kSrunExitWait{40};
constexpr seconds kStateWait{15};

// The slots a request works on (other than the one a load fills).
std::vector<std::string> slots_named(const nlohmann::json& req) {
  std::vector<std::string> out;
  auto add = [&](const nlohmann::json& v) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  };
  if (req.value("cmd", "") != "load" && req.contains("slot")) add(req["slot"]);
  if (req.contains("slots") && req["slots"].is_array())
    for (const auto& s : req["slots"]) add(s);
  if (req.contains("pad") && req["pad"].is_object() && req["pad"].contains("slot")) add(req["pad"]["slot"]);
  return out;
}

struct Slot {
  std::string artifact;
  bool loaded_once = false;   // a job has loaded it: a failure to reload it is the cluster's, not the artifact's
};

class SlurmHarness : public Harness {
 public:
  SlurmHarness(std::filesystem::path exe, SlurmSettings s, ProcessRunner& runner, const std::atomic<bool>* cancel)
      : exe_(std::move(exe)), s_(std::move(s)), runner_(runner), cancel_(cancel) {}
  ~SlurmHarness() override { end_job(Ending::Quit, "the driver ended"); }

  std::optional<nlohmann::json> start(std::string* error) override {
    end_job(Ending::Quit, "restarted by the driver");
    std::string why;
    if (!begin_job(&why)) {
      // Nothing was reloaded: what the slots held is still what the next job needs.
      if (error) *error = why;
      return std::nullopt;
    }
    // A fresh harness holds nothing: the caller reloads what it needs.
    slots_.clear();
    loaded_.clear();
    return device_;
  }

  HarnessReply call(const nlohmann::json& req, milliseconds timeout) override {
    for (;;) {
      if (!chan_) {
        // Between steps no job runs: a load is remembered and done in the job
        // that needs it (a keep's reloads of the best need no job of their own).
        if (req.value("cmd", "") == "load" && req.contains("slot") && req["slot"].is_string()) {
          std::string slot = req["slot"];
          slots_[slot] = Slot{req.value("artifact", ""), false};
          HarnessReply r;
          r.status = HarnessReply::Status::Ok;
          r.body = {{"ok", true}, {"slot", slot}, {"deferred", true}};
          return r;
        }
        std::string why;
        if (!begin_job(&why)) return lost(why);
      }
      Outcome o = reload_for(req, timeout);
      if (o == Outcome::Requeue) continue;
      if (o == Outcome::Failed) return std::move(failure_);
      HarnessReply r = exchange(req, timeout);
      if (r.status == HarnessReply::Status::Crashed && !chan_) {
        // exchange() ended the job: re-queued, lost, or the harness's own death.
        if (outcome_ == Outcome::Requeue) continue;
        if (outcome_ == Outcome::Failed) return std::move(failure_);
        return r;
      }
      if (req.value("cmd", "") == "load" && req.contains("slot") && req["slot"].is_string()) {
        std::string slot = req["slot"];
        if (r.ok()) {
          slots_[slot] = Slot{req.value("artifact", ""), true};
          loaded_.insert(slot);
        } else {
          slots_.erase(slot);
          loaded_.erase(slot);
        }
      }
      return r;
    }
  }

  void stop() override { end_job(Ending::Quit, "stopped by the driver"); }

  void end_step() override {
    end_job(Ending::Quit, "end of step");
    requeues_this_step_ = 0;
    spent_ = false;
  }

  nlohmann::json take_record() override {
    if (jobs_.empty() && requeues_ == 0) return nullptr;
    nlohmann::json out = {{"jobs", std::move(jobs_)}, {"requeues", requeues_}};
    jobs_ = nlohmann::json::array();
    requeues_ = 0;
    return out;
  }

 private:
  enum class Outcome { Ok, Requeue, Failed };
  enum class Ending { Quit, Kill, Died };

  // A request failed because the cluster took the job and no re-queue is left:
  // the harness was killed from outside (SIGTERM is what SLURM sends), which
  // the loop counts against the infrastructure, not the candidate.
  HarnessReply lost(const std::string& why) {
    HarnessReply r;
    r.status = HarnessReply::Status::Crashed;
    r.signal = SIGTERM;
    r.message = why;
    return r;
  }

  // Another job, if this step has a re-queue left; false (and spent) otherwise.
  bool requeue() {
    if (requeues_this_step_ >= s_.max_requeues) {
      spent_ = true;
      return false;
    }
    requeues_this_step_++;
    requeues_++;
    return true;
  }

  bool begin_job(std::string* why) {
    for (;;) {
      if (spent_) {
        *why = fmt::format("SLURM: this step's {} re-queue(s) are spent ({})", s_.max_requeues, last_loss_);
        return false;
      }
      std::string failure;
      Launch l = launch(&failure);
      if (l == Launch::Ok) return true;
      last_loss_ = failure;
      bool again = l != Launch::Final && !(cancel_ && cancel_->load()) && requeue();
      if (!jobs_.empty() && l != Launch::Final) jobs_.back()["requeued"] = again;
      if (!again) {
        *why = l == Launch::Final ? failure
                                  : fmt::format("SLURM: no job started after {} re-queue(s): {}", requeues_this_step_,
                                                failure);
        if (l != Launch::Final) spent_ = true;
        return false;
      }
    }
  }

  enum class Launch { Ok, Retry, Final };

  Launch launch(std::string* why) {
    ProcessSpec spec;
    spec.argv = srun_argv(s_, exe_);
    spec.cancel = cancel_;
    std::string err;
    chan_ = start_line_channel(spec, &err);
    if (!chan_) {
      *why = "cannot run " + s_.srun + ": " + err;
      return Launch::Final;   // no srun here: no re-queue helps
    }
    job_ = Job{};
    job_.started = std::chrono::steady_clock::now();
    loaded_.clear();
    std::string line_why;
    std::optional<std::string> line;
    if (chan_->write_line(R"({"cmd":"hello"})")) line = chan_->read_line(s_.start_timeout, &line_why);
    learn_job_id();
    if (line) {
      try {
        auto hello = nlohmann::json::parse(*line);
        if (hello.is_object() && hello.value("ok", false) == true) {
          device_ = hello.value("device", nlohmann::json::object());
          if (!job_.node.empty()) device_["slurm_node"] = job_.node;
          return Launch::Ok;
        }
        *why = "the harness did not start: " + hello.value("error", line->substr(0, 300));
      } catch (const nlohmann::json::parse_error&) {
        *why = "the harness sent something that is not JSON: " + line->substr(0, 200);
      }
    } else if (line_why == "cancelled") {
      *why = "interrupted while waiting for a SLURM job";
    } else if (line_why == "timeout") {
      *why = fmt::format("no SLURM job started within {:.0f} s", s_.start_timeout.count() / 1000.0);
    } else {
      *why = "srun ended before the harness said hello";
    }
    // srun has exited: reap it, which lets its stderr drain, before quoting it
    // (the reason arrives on stderr after stdout's EOF, on a loaded machine too).
    if (line_why == "eof") chan_->kill();
    std::string tail = chan_->stderr_tail(1500);
    end_job(line_why == "eof" ? Ending::Died : Ending::Kill, "did not start");
    *why += " (" + job_text_of(last_) + ")" + (tail.empty() ? "" : "\nsrun stderr:\n" + tail);
    return Launch::Retry;
  }

  void learn_job_id() {
    if (job_.id != 0 || !chan_) return;
    std::string node;
    job_.id = job_id_in_stderr(chan_->stderr_tail(64 * 1024), &node);
    if (!node.empty()) job_.node = node;
  }

  std::string job_text() const {
    std::string id = job_.id ? fmt::format("SLURM job {}", job_.id) : std::string("a SLURM job");
    return job_.node.empty() ? id : id + " on " + job_.node;
  }

  // A new job has none of the old one's slots: load, first, those the request names.
  Outcome reload_for(const nlohmann::json& req, milliseconds timeout) {
    for (const auto& name : slots_named(req)) {
      auto it = slots_.find(name);
      if (it == slots_.end() || loaded_.count(name)) continue;
      nlohmann::json load = {{"cmd", "load"}, {"slot", name}, {"artifact", it->second.artifact}};
      HarnessReply r = exchange(load, std::min<milliseconds>(timeout, kLoadTimeout));
      if (r.ok()) {
        it->second.loaded_once = true;
        loaded_.insert(name);
        continue;
      }
      if (r.status == HarnessReply::Status::Crashed && !chan_) {
        if (outcome_ != Outcome::Ok) return outcome_;
        failure_ = std::move(r);
        return Outcome::Failed;
      }
      if (!it->second.loaded_once) {
        // The load the driver asked for, done late: its answer is the artifact's.
        failure_ = std::move(r);
        return Outcome::Failed;
      }
      failure_ = HarnessReply{};
      failure_.status = HarnessReply::Status::Error;
      std::string error = fmt::format("{} could not reload slot {} from {}: {}", job_text(), name,
                                      it->second.artifact, r.body.value("error", r.message));
      failure_.body = {{"ok", false}, {"kind", "executor"}, {"error", error}, {"slot", name}};
      failure_.message = "executor: " + error;
      return Outcome::Failed;
    }
    return Outcome::Ok;
  }

  // One request and its reply, as ProcessHarness does it; when the job ends on
  // the way, outcome_ says whether to re-queue (failure_ holds the reply when not).
  HarnessReply exchange(const nlohmann::json& req, milliseconds timeout) {
    outcome_ = Outcome::Ok;
    HarnessReply r;
    std::string why;
    std::optional<std::string> line;
    if (chan_->write_line(req.dump())) line = chan_->read_line(timeout, &why);
    else why = cancel_ && cancel_->load() ? "cancelled" : "eof";
    learn_job_id();
    if (!line) {
      if (why == "timeout" || why == "cancelled") {
        r.status = why == "timeout" ? HarnessReply::Status::TimedOut : HarnessReply::Status::Cancelled;
        r.message = why == "timeout" ? fmt::format("no answer within {:.0f} s", timeout.count() / 1000.0)
                                     : std::string("interrupted");
        r.message += " (" + job_text() + ")" + tail();
        end_job(Ending::Kill, why == "timeout" ? "killed by the driver: no answer in time" : "interrupted");
        return r;
      }
      return died();
    }
    // A job the cluster ends while the harness writes leaves half a line (srun
    // forwards what it got): that is the job's end, not a harness gone mad.
    auto not_a_reply = [&](const std::string& what) {
      if (job_is_ending()) return died();
      r.status = HarnessReply::Status::Crashed;
      r.message = what + tail();
      end_job(Ending::Kill, "killed by the driver: not a reply");
      return r;
    };
    try {
      r.body = nlohmann::json::parse(*line);
    } catch (const nlohmann::json::parse_error&) {
      return not_a_reply("the harness sent something that is not JSON: " + line->substr(0, 200));
    }
    if (!r.body.is_object() || !r.body.contains("ok")) return not_a_reply("the harness sent a reply without \"ok\"");
    if (r.body["ok"] == true) {
      r.status = HarnessReply::Status::Ok;
      return r;
    }
    r.status = HarnessReply::Status::Error;
    r.message = r.body.value("kind", "error") + ": " + r.body.value("error", "(no message)");
    // After a fault (or a fatal guard) the harness exits: so does its job.
    if (r.body.value("kind", "") == "fault" || r.body.value("exits", false))
      end_job(Ending::Kill, "the harness exits after " + r.body.value("kind", "error"));
    return r;
  }

  // The harness is gone (or going) by itself: the cluster's doing (outcome_
  // says re-queue, or failure_ holds the loss) or the harness's own death.
  HarnessReply died() {
    HarnessReply r;
    std::string stderr_tail = tail();
    SlurmJobState st = end_job(Ending::Died, "the harness died");
    r.status = HarnessReply::Status::Crashed;
    r.signal = st.signal;
    if (outside_) {
      std::string loss = fmt::format("{} ended by the cluster: {}{}", job_text_of(last_), st.state,
                                     st.reason.empty() || st.reason == "None" ? "" : " (" + st.reason + ")");
      last_loss_ = loss;
      bool again = requeue();
      jobs_.back()["requeued"] = again;
      if (again) {
        outcome_ = Outcome::Requeue;
      } else {
        outcome_ = Outcome::Failed;
        failure_ = lost(fmt::format("{}; this step's {} re-queue(s) are spent", loss, s_.max_requeues));
      }
      r.message = loss;
      return r;
    }
    r.message = fmt::format("the harness died ({}: {}, exit code {}:{}){}", job_text_of(last_), st.state,
                            st.exit_code, st.signal, stderr_tail);
    return r;
  }

  // Whether the controller sees the current job ending (COMPLETING while its
  // tasks are signalled) or ended by the cluster; not while it runs.
  bool job_is_ending() {
    if (job_.id == 0) return false;
    ProcessSpec spec;
    spec.argv = {s_.scontrol, "show", "job", "-o", std::to_string(job_.id)};
    spec.timeout = seconds(30);
    auto r = runner_.run(spec);
    if (!r.ok()) return false;
    auto st = parse_scontrol_job(r.out);
    return st && (st->state == "COMPLETING" || slurm_state_is_outside(st->state));
  }

  std::string tail() {
    if (!chan_) return "";
    std::string t = chan_->stderr_tail(2000);
    return t.empty() ? "" : "\nharness stderr:\n" + t;
  }

  struct Job {
    long long id = 0;
    std::string node;
    std::chrono::steady_clock::time_point started;
  };

  static std::string job_text_of(const Job& j) {
    std::string id = j.id ? fmt::format("SLURM job {}", j.id) : std::string("a SLURM job");
    return j.node.empty() ? id : id + " on " + j.node;
  }

  // Ends the current job (Quit: asks the harness to exit; Kill: kills srun and
  // cancels the job; Died: the harness is gone, srun follows), reads its final
  // state and records it. outside_ says whether the cluster ended it.
  SlurmJobState end_job(Ending how, const std::string& why) {
    SlurmJobState st;
    outside_ = false;
    if (!chan_) return st;
    learn_job_id();
    bool killed_by_us = how == Ending::Kill;
    if (how == Ending::Quit && chan_->alive()) {
      if (chan_->write_line(R"({"cmd":"quit"})")) {
        std::string w;
        chan_->read_line(seconds(5), &w);
      }
    }
    // srun exits by itself once the task has: a job that ends on its own is COMPLETED or FAILED, not CANCELLED.
    auto deadline = std::chrono::steady_clock::now() + (how == Ending::Kill ? seconds(0) : kSrunExitWait);
    while (chan_->alive() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(milliseconds(50));
    if (chan_->alive()) killed_by_us = true;
    chan_->kill();   // SIGTERM to srun (it forwards it to the step), SIGKILL after a grace
    std::string srun_exit = chan_->exit_description();
    std::string srun_stderr = chan_->stderr_tail(16 * 1024);
    chan_.reset();
    if (job_.id != 0 && killed_by_us) scancel(job_.id);
    st = job_.id != 0 ? final_state(job_.id) : SlurmJobState{"UNKNOWN", "", 0, 0};
    if (slurm_state_is_transient(st.state) || st.state == "UNKNOWN") {
      // Still completing (a long epilog), or forgotten: slurmstepd's own line
      // on the job's stderr ("*** STEP 8.0 ON vm CANCELLED AT ...") says how it ended.
      if (auto said = ending_in_stderr(srun_stderr)) {
        st.state = *said;
        st.reason = "from srun's stderr";
      }
    }
    if (st.state == "UNKNOWN") {
      // No record (an accounting-less cluster that forgot the job): srun's exit says how the task ended.
      int code = 0;
      if (std::sscanf(srun_exit.c_str(), "exit status %d", &code) == 1 && code > 128) st.signal = code - 128;
    }
    outside_ = how == Ending::Died && !killed_by_us &&
               (slurm_state_is_outside(st.state) ||
                (st.state == "UNKNOWN" && (st.signal == SIGTERM || st.signal == SIGKILL)));
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - job_.started).count();
    nlohmann::json j = {{"id", job_.id ? nlohmann::json(job_.id) : nlohmann::json()},
                        {"node", job_.node},
                        {"state", st.state},
                        {"ended", outside_ ? "by the cluster" : why},
                        {"seconds", std::round(secs * 1000) / 1000}};
    if (!st.reason.empty() && st.reason != "None") j["reason"] = st.reason;
    if (st.exit_code != 0 || st.signal != 0) j["exit_code"] = fmt::format("{}:{}", st.exit_code, st.signal);
    jobs_.push_back(j);
    last_ = job_;
    job_ = Job{};
    loaded_.clear();
    return st;
  }

  void scancel(long long id) {
    ProcessSpec spec;
    spec.argv = {s_.scancel, std::to_string(id)};
    spec.timeout = seconds(30);
    runner_.run(spec);
  }

  // The job's state once it has settled: scontrol while the controller
  // remembers it, else sacct where accounting runs, else UNKNOWN.
  SlurmJobState final_state(long long id) {
    auto deadline = std::chrono::steady_clock::now() + kStateWait;
    std::optional<SlurmJobState> seen;
    int unreadable = 0;   // answers without a job state (a busy controller): asked again, a few times
    for (;;) {
      ProcessSpec spec;
      spec.argv = {s_.scontrol, "show", "job", "-o", std::to_string(id)};
      spec.timeout = seconds(30);
      auto r = runner_.run(spec);
      if (!r.ok()) break;
      seen = parse_scontrol_job(r.out);
      if (!seen && ++unreadable >= 5) break;
      if (seen && !slurm_state_is_transient(seen->state)) break;
      if (std::chrono::steady_clock::now() >= deadline) break;   // the last state seen, below
      std::this_thread::sleep_for(milliseconds(200));
    }
    if (seen) return *seen;
    ProcessSpec spec;
    spec.argv = {s_.sacct, "-n", "-X", "-P", "-j", std::to_string(id), "-o", "State,ExitCode"};
    spec.timeout = seconds(30);
    auto r = runner_.run(spec);
    if (r.ok())
      if (auto s = parse_sacct_job(r.out)) return *s;
    return SlurmJobState{"UNKNOWN", "", 0, 0};
  }

  std::filesystem::path exe_;
  SlurmSettings s_;
  ProcessRunner& runner_;
  const std::atomic<bool>* cancel_;
  std::unique_ptr<LineChannel> chan_;
  Job job_, last_;
  nlohmann::json device_ = nlohmann::json::object();
  std::map<std::string, Slot> slots_;   // what the driver loaded, slot by slot
  std::set<std::string> loaded_;        // ... and what the current job holds
  nlohmann::json jobs_ = nlohmann::json::array();
  int requeues_ = 0;                    // since the last take_record
  int requeues_this_step_ = 0;
  bool spent_ = false;                  // this step's re-queues are used up
  bool outside_ = false;                // the last ended job was ended by the cluster
  std::string last_loss_;
  Outcome outcome_ = Outcome::Ok;
  HarnessReply failure_;
};

}  // namespace

std::unique_ptr<Harness> make_slurm_harness(std::filesystem::path exe, SlurmSettings settings, ProcessRunner& runner,
                                            const std::atomic<bool>* cancel) {
  return std::make_unique<SlurmHarness>(std::move(exe), std::move(settings), runner, cancel);
}

}  // namespace ar
