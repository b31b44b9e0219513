#include "autoresearch/loop/world.h"

#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <thread>

#include <fmt/format.h>

#include "autoresearch/util/errors.h"

extern char** environ;

namespace ar {

namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_signals{0};

extern "C" void on_stop_signal(int) {
  // The first signal asks for a clean stop (the candidate in flight is
  // abandoned, logged, and the worktree reverted); a second one insists.
  if (g_signals.fetch_add(1) >= 1) _exit(130);
  g_stop.store(true);
}

nlohmann::json host_facts() {
  nlohmann::json h;
  char name[256] = {0};
  gethostname(name, sizeof name - 1);
  h["hostname"] = name;
  struct utsname u;
  if (uname(&u) == 0) h["os"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
  h["cpus"] = std::thread::hardware_concurrency();
  std::ifstream cpu("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpu, line))
    if (line.rfind("model name", 0) == 0) {
      h["cpu"] = line.substr(line.find(':') + 2);
      break;
    }
  return h;
}

// SLURM's time formats: minutes, minutes:seconds, hours:minutes:seconds,
// days-hours, days-hours:minutes, days-hours:minutes:seconds.
bool is_slurm_time(const std::string& t) {
  static const std::regex re(R"(([0-9]+(:[0-9]+){0,2})|([0-9]+-[0-9]+(:[0-9]+){0,2})|UNLIMITED|INFINITE)");
  return std::regex_match(t, re);
}

// srun options that would break the one-task, stdin-to-stdout protocol job.
bool breaks_the_job(const std::string& opt) {
  static const char* kRefused[] = {"-n", "--ntasks", "-N", "--nodes", "-i", "--input", "-o", "--output",
                                   "-e", "--error", "--pty", "--multi-prog", "--jobid", "-l", "--label",
                                   "--kill-on-bad-exit", "-K", "-J", "--job-name", "-p", "--partition",
                                   "-A", "--account", "-t", "--time", "--gres"};
  std::string name = opt.substr(0, opt.find('='));
  if (name.size() > 2 && name[1] != '-') name = name.substr(0, 2);   // -n4
  for (const char* r : kRefused)
    if (name == r) return true;
  return false;
}

}  // namespace

void validate_executor(const RunConfig& c) {
  auto bad = [](const std::string& what) { throw usage_error(what); };
  if (c.executor != "local" && c.executor != "slurm")
    bad(fmt::format("--executor: '{}' (expected local or slurm)", c.executor));
  if (c.executor != "slurm") return;
  if (c.gpu != 0)
    bad("--gpu picks a GPU of this machine; under --executor slurm each job gets its GPU from SLURM (--slurm-gres)");
  if (c.slurm_requeues < 0) bad("--slurm-requeues must be >= 0");
  if (!(c.slurm_start_timeout_s > 0)) bad("--slurm-start-timeout-s must be > 0");
  if (!c.slurm_time.empty() && !is_slurm_time(c.slurm_time))
    bad(fmt::format("--slurm-time: '{}' is not a SLURM time limit (minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, "
                    "D-HH:MM:SS, or UNLIMITED)", c.slurm_time));
  if (c.slurm_job_name.empty() || c.slurm_job_name.find_first_of(" \t\n") != std::string::npos)
    bad("--slurm-job-name must be one word");
  for (const auto& o : c.slurm_option) {
    if (o.size() < 2 || o[0] != '-')
      bad(fmt::format("--slurm-option: '{}' is not an srun option (write --slurm-option=--constraint=h200)", o));
    if (breaks_the_job(o))
      bad(fmt::format("--slurm-option: '{}' is set by autoresearch (one task, its stdin and stdout are the "
                      "protocol; use --slurm-partition, --slurm-account, --slurm-time, --slurm-job-name, "
                      "--slurm-gres)", o));
  }
}

SlurmSettings slurm_settings_for(const RunConfig& c, Backend backend) {
  SlurmSettings s;
  s.partition = c.slurm_partition;
  s.account = c.slurm_account;
  s.time_limit = c.slurm_time;
  s.job_name = c.slurm_job_name;
  if (backend == Backend::Cuda) s.gres = c.slurm_gres;
  s.extra = c.slurm_option;
  s.max_requeues = c.slurm_requeues;
  s.start_timeout = std::chrono::milliseconds(static_cast<long long>(c.slurm_start_timeout_s * 1000));
  for (char** e = environ; e && *e; ++e) {
    std::string var(*e);
    std::string name = var.substr(0, var.find('='));
    if (name.rfind("SLURM_", 0) == 0 && name != "SLURM_CONF") s.unset_env.push_back(name);
  }
  return s;
}

std::unique_ptr<Harness> open_run_harness(World& w, const RunConfig& cfg, Backend backend,
                                          const std::filesystem::path& exe) {
  if (cfg.executor != "slurm") return w.open_harness(exe, cfg.gpu);
  if (!w.open_slurm_harness) throw Fatal(kExitInfrastructure, "--executor slurm is not available here");
  return w.open_slurm_harness(exe, slurm_settings_for(cfg, backend));
}

const std::atomic<bool>* install_stop_signals() {
  struct sigaction sa = {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  return &g_stop;
}

World real_world(ProcessRunner& runner, Clock& clock, Printer& printer, const std::atomic<bool>* stop) {
  World w;
  w.runner = &runner;
  w.clock = &clock;
  w.printer = &printer;
  w.stop = stop;
  w.open_git = [&runner](const std::filesystem::path& dir) { return make_real_git(runner, dir); };
  w.open_harness = [stop](const std::filesystem::path& exe, int gpu) { return make_process_harness(exe, gpu, stop); };
  w.open_slurm_harness = [&runner, stop](const std::filesystem::path& exe, const SlurmSettings& s) {
    return make_slurm_harness(exe, s, runner, stop);
  };
  w.find_toolchain = [&runner](Backend b, std::string* why) { return detect_toolchain(b, runner, why); };
  w.build_harness = [&runner, stop](const Manifest& m, const Paths& p, const Toolchain& tc) {
    return ar::build_harness(m, p, tc, runner, stop);
  };
  w.host_info = host_facts;
  return w;
}

}  // namespace ar
