#include "autoresearch/loop/world.h"

#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <thread>

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

}  // namespace

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
  w.find_toolchain = [&runner](Backend b, std::string* why) { return detect_toolchain(b, runner, why); };
  w.build_harness = [&runner, stop](const Manifest& m, const Paths& p, const Toolchain& tc) {
    return ar::build_harness(m, p, tc, runner, stop);
  };
  w.host_info = host_facts;
  return w;
}

}  // namespace ar
