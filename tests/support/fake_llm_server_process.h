#pragma once
// Runs tests/support/fake_llm_server as a child on an ephemeral loopback port
// for the length of a test: writes the script, waits for the port file, and
// stops the server with SIGTERM (checking it exits cleanly) at the end.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

extern char** environ;

namespace ar {

class FakeLlmServerProcess {
 public:
  // `binary`: the fake_llm_server executable; `dir`: a scratch folder for the
  // script, port and record files; `env`: added to the child's environment
  // (e.g. FAKE_LLM_EXPECT_KEY); `extra_args`: more flags (e.g. --tls-cert).
  FakeLlmServerProcess(const std::string& binary, const std::filesystem::path& dir,
                       const nlohmann::json& script, const std::map<std::string, std::string>& env = {},
                       const std::vector<std::string>& extra_args = {})
      : dir_(dir) {
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "script.json") << script.dump(2);
    std::filesystem::remove(dir_ / "port");
    std::vector<std::string> args = {binary, "--script", (dir_ / "script.json").string(), "--port-file",
                                     (dir_ / "port").string(), "--record", record_path().string()};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    std::vector<std::string> envs;
    for (char** e = environ; *e; ++e) {
      std::string entry = *e;
      if (!env.count(entry.substr(0, entry.find('=')))) envs.push_back(entry);
    }
    for (const auto& [name, value] : env) envs.push_back(name + "=" + value);
    std::vector<char*> argv, envp;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : envs) envp.push_back(e.data());
    envp.push_back(nullptr);
    if (posix_spawn(&pid_, binary.c_str(), nullptr, nullptr, argv.data(), envp.data()) != 0) {
      throw std::runtime_error("cannot start " + binary);
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!std::filesystem::exists(dir_ / "port")) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw std::runtime_error("fake_llm_server exited before listening");
      }
      if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("fake_llm_server did not start");
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::ifstream(dir_ / "port") >> port_;
  }

  ~FakeLlmServerProcess() { stop(); }
  FakeLlmServerProcess(const FakeLlmServerProcess&) = delete;
  FakeLlmServerProcess& operator=(const FakeLlmServerProcess&) = delete;

  int port() const { return port_; }
  std::string base_url(const std::string& path = "", const std::string& scheme = "http") const {
    return scheme + "://127.0.0.1:" + std::to_string(port_) + path;
  }
  std::filesystem::path record_path() const { return dir_ / "record.jsonl"; }

  std::string record_text() const {
    std::ifstream in(record_path());
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::vector<nlohmann::json> records() const {
    std::vector<nlohmann::json> out;
    std::istringstream lines(record_text());
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty()) out.push_back(nlohmann::json::parse(line));
    }
    return out;
  }

  // SIGTERM and wait; the exit status (0 for a clean exit), or -1 if not running.
  int stop() {
    if (pid_ <= 0) return -1;
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  std::filesystem::path dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace ar
