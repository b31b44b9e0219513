#pragma once
// The harness as a SLURM job (--executor slurm): the harness executable runs
// under `srun` on a node the scheduler picks, its stdin and stdout forwarded by
// srun, so the driver speaks the same protocol as to a local child. One job per
// measurement step: end_step() ends it, and the next request starts a new one
// and reloads the slots that request needs. Artifacts are passed by path, so
// the build folders must be on a filesystem the nodes share.
//
// A job that fails to start, or that the cluster ends (scancel, preemption, the
// time limit, a node failure), is re-queued: a new job, the slots reloaded, the
// request sent again, at most `max_requeues` times per step. After that the
// request fails as a harness killed from outside (an infrastructure failure,
// never the candidate's).
#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autoresearch/measure/harness.h"
#include "autoresearch/util/subprocess.h"

namespace ar {

struct SlurmSettings {
  // The programs (PATH names or paths; tests point them at fakes).
  std::string srun = "srun";
  std::string scontrol = "scontrol";
  std::string scancel = "scancel";
  std::string sacct = "sacct";
  std::string partition;                // empty: the cluster's default
  std::string account;                  // empty: the user's default
  std::string time_limit;               // SLURM's format (30, 1:00:00, 1-0); empty: the partition's
  std::string job_name = "autoresearch";
  std::string gres;                     // e.g. gpu:1 for CUDA packages; empty: none (CPU packages)
  std::vector<std::string> extra;       // more srun options, passed as given (--constraint=h200, --qos=...)
  // Removed from srun's environment: a driver inside a SLURM allocation (sbatch)
  // would otherwise start job steps in its own allocation, not jobs of their own.
  std::vector<std::string> unset_env;
  int max_requeues = 2;                 // per measurement step
  std::chrono::milliseconds start_timeout{std::chrono::seconds(900)};   // queue wait + hello
};

// The srun command line for one job of `exe` (the harness is always `--gpu 0`:
// a job sees only the GPU SLURM gave it).
std::vector<std::string> srun_argv(const SlurmSettings& s, const std::filesystem::path& exe);

// What SLURM says about a job that ended.
struct SlurmJobState {
  std::string state;     // COMPLETED, FAILED, CANCELLED, TIMEOUT, PREEMPTED, NODE_FAIL, ... or UNKNOWN
  std::string reason;
  int exit_code = 0;
  int signal = 0;        // from ExitCode=code:signal
};
// Parses one `scontrol show job -o` line; nullopt when it names no JobState.
std::optional<SlurmJobState> parse_scontrol_job(const std::string& line);
// Parses `sacct -n -X -P -o State,ExitCode` output ("CANCELLED by 0|0:15").
std::optional<SlurmJobState> parse_sacct_job(const std::string& text);
// Still on its way (pending, running, completing): not its final state.
bool slurm_state_is_transient(const std::string& state);
// Ended by the cluster or an administrator, not by what ran in it.
bool slurm_state_is_outside(const std::string& state);
// How slurmstepd says a job or step ended on its stderr ("*** STEP 8.0 ON vm
// CANCELLED AT ... DUE TO TIME LIMIT ***"): CANCELLED, TIMEOUT, PREEMPTED,
// NODE_FAIL; nullopt when it says nothing of the kind.
std::optional<std::string> ending_in_stderr(const std::string& text);
// The job id srun's stderr names (our wrapper's line first, then srun's own
// "job N queued" / "jobid N"); 0 when none.
long long job_id_in_stderr(const std::string& text, std::string* node = nullptr);

// `runner` runs scontrol/scancel/sacct; `cancel` is the driver's stop flag.
std::unique_ptr<Harness> make_slurm_harness(std::filesystem::path exe, SlurmSettings settings, ProcessRunner& runner,
                                            const std::atomic<bool>* cancel);

}  // namespace ar
