// What SLURM says about a job: the srun command line we build, and the parsers
// for scontrol, sacct and srun's stderr. Pure functions, tested without SLURM.
#include <regex>

#include "autoresearch/measure/slurm_harness.h"

namespace ar {

namespace {

// Printed by the job itself, before the harness starts, so the driver learns
// which job and node it got (srun says nothing when a job starts at once).
constexpr const char* kWrapper =
    "printf 'autoresearch-slurm-job %s %s\\n' \"$SLURM_JOB_ID\" \"${SLURMD_NODENAME:-?}\" >&2; exec \"$@\"";

void parse_exit_code(const std::string& text, SlurmJobState* out) {
  auto colon = text.find(':');
  try {
    out->exit_code = std::stoi(text.substr(0, colon));
    if (colon != std::string::npos) out->signal = std::stoi(text.substr(colon + 1));
  } catch (const std::exception&) {
  }
}

}  // namespace

std::vector<std::string> srun_argv(const SlurmSettings& s, const std::filesystem::path& exe) {
  std::vector<std::string> a;
  if (!s.unset_env.empty()) {
    a.push_back("env");
    for (const auto& v : s.unset_env) a.insert(a.end(), {"-u", v});
  }
  a.insert(a.end(), {s.srun, "--job-name=" + s.job_name, "--nodes=1", "--ntasks=1",
                     // The task's death ends the job at once: no step lingers on the node.
                     "--kill-on-bad-exit=1"});
  if (!s.partition.empty()) a.push_back("--partition=" + s.partition);
  if (!s.account.empty()) a.push_back("--account=" + s.account);
  if (!s.time_limit.empty()) a.push_back("--time=" + s.time_limit);
  if (!s.gres.empty()) a.push_back("--gres=" + s.gres);
  a.insert(a.end(), s.extra.begin(), s.extra.end());
  a.insert(a.end(), {"--", "/bin/sh", "-c", kWrapper, "autoresearch-harness", exe.string(), "--gpu", "0"});
  return a;
}

std::optional<SlurmJobState> parse_scontrol_job(const std::string& line) {
  SlurmJobState out;
  bool found = false;
  size_t pos = 0;
  while (pos < line.size()) {
    size_t end = line.find_first_of(" \n", pos);
    if (end == std::string::npos) end = line.size();
    std::string field = line.substr(pos, end - pos);
    pos = end + 1;
    auto eq = field.find('=');
    if (eq == std::string::npos) continue;
    std::string key = field.substr(0, eq), value = field.substr(eq + 1);
    if (key == "JobState") {
      out.state = value;
      found = true;
    } else if (key == "Reason") {
      out.reason = value;
    } else if (key == "ExitCode") {
      parse_exit_code(value, &out);
    }
  }
  if (!found || out.state.empty()) return std::nullopt;
  return out;
}

std::optional<SlurmJobState> parse_sacct_job(const std::string& text) {
  // The first line is the job itself (-X): "CANCELLED by 0|0:15".
  std::string line = text.substr(0, text.find('\n'));
  auto bar = line.find('|');
  if (bar == std::string::npos || bar == 0) return std::nullopt;
  SlurmJobState out;
  out.state = line.substr(0, bar);
  auto space = out.state.find(' ');
  if (space != std::string::npos) {
    out.reason = out.state.substr(space + 1);
    out.state = out.state.substr(0, space);
  }
  parse_exit_code(line.substr(bar + 1), &out);
  return out;
}

bool slurm_state_is_transient(const std::string& state) {
  static const char* kTransient[] = {"PENDING", "RUNNING", "COMPLETING", "CONFIGURING", "SUSPENDED",
                                     "RESIZING", "SIGNALING", "STAGE_OUT", "REQUEUE_HOLD", "REQUEUE_FED",
                                     "REQUEUED", "RESV_DEL_HOLD", "STOPPED"};
  for (const char* s : kTransient)
    if (state == s) return true;
  return false;
}

bool slurm_state_is_outside(const std::string& state) {
  // OUT_OF_MEMORY: the node's memory limit, as the OOM killer is for a local harness.
  static const char* kOutside[] = {"CANCELLED", "PREEMPTED", "TIMEOUT", "NODE_FAIL", "BOOT_FAIL",
                                   "DEADLINE", "OUT_OF_MEMORY", "REVOKED", "REQUEUED"};
  for (const char* s : kOutside)
    if (state == s) return true;
  return false;
}

std::optional<std::string> ending_in_stderr(const std::string& text) {
  static const std::regex re(R"(\*\*\* (?:JOB|STEP) [0-9.+_a-z]+ ON \S+ CANCELLED AT \S+( DUE TO [A-Z ]+)?)");
  std::smatch m;
  if (!std::regex_search(text, m, re)) return std::nullopt;
  std::string due = m[1].str();
  if (due.find("TIME LIMIT") != std::string::npos) return "TIMEOUT";
  if (due.find("PREEMPTION") != std::string::npos) return "PREEMPTED";
  if (due.find("NODE FAIL") != std::string::npos) return "NODE_FAIL";
  return "CANCELLED";
}

long long job_id_in_stderr(const std::string& text, std::string* node) {
  static const std::regex ours(R"(autoresearch-slurm-job ([0-9]+) (\S+))");
  static const std::regex sruns(R"(srun: (?:job|jobid|Force Terminated job) ([0-9]+))");
  std::smatch m;
  if (std::regex_search(text, m, ours)) {
    if (node) *node = m[2].str();
    return std::stoll(m[1].str());
  }
  if (std::regex_search(text, m, sruns)) return std::stoll(m[1].str());
  return 0;
}

}  // namespace ar
