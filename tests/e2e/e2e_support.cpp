#include "e2e_support.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace fs = std::filesystem;

namespace e2e {

namespace {

std::map<std::string, std::string> test_env() {
  return {{"AUTORESEARCH_HOME", AR_SOURCE_DIR},
          {"AUTORESEARCH_CACHE_DIR", AR_E2E_CACHE},
          {"NO_COLOR", "1"},
          {"GIT_CONFIG_GLOBAL", "/dev/null"},
          {"GIT_CONFIG_SYSTEM", "/dev/null"}};
}

ar::ProcessResult run_in(const fs::path& dir, const std::vector<std::string>& argv, int timeout_s,
                         const std::map<std::string, std::string>& more = {}) {
  ar::RealProcessRunner r;
  ar::ProcessSpec s;
  s.argv = argv;
  s.cwd = dir;
  s.env = test_env();
  for (const auto& [k, v] : more) s.env[k] = v;
  s.timeout = std::chrono::seconds(timeout_s);
  return r.run(s);
}

}  // namespace

TempRepo::TempRepo(const std::vector<std::string>& packages) {
  char tmpl[] = "/tmp/ar-e2e-XXXXXX";
  dir = mkdtemp(tmpl);
  git({"init", "-q", "-b", "main"});
  fs::path src = AR_SOURCE_DIR;
  for (const auto& p : packages) {
    fs::path from = fs::exists(src / "kernels" / p) ? src / "kernels" / p : src / "tests" / "e2e" / "packages" / p;
    fs::create_directories(dir / "kernels" / p);
    fs::copy(from, dir / "kernels" / p, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    // Test packages borrow the matmul package's protected problem.
    if (!fs::exists(dir / "kernels" / p / "problem.cpp"))
      for (const char* f : {"problem.cpp", "matmul_params.h"})
        fs::copy_file(src / "kernels" / "matmul_cpu" / f, dir / "kernels" / p / f);
  }
  commit_all("packages");
}

TempRepo::~TempRepo() {
  std::error_code ec;
  if (!std::getenv("AR_E2E_KEEP")) fs::remove_all(dir, ec);
}

std::string TempRepo::git(const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {"git", "-c", "user.name=e2e", "-c", "user.email=e2e@test"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = run_in(dir, argv, 60);
  if (!r.ok()) throw std::runtime_error("git failed: " + r.describe() + ": " + r.err);
  std::string out = r.out;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

void TempRepo::commit_all(const std::string& message) const {
  git({"add", "-A"});
  git({"commit", "-qm", message});
}

ar::ProcessResult run_cli(const TempRepo& repo, const std::vector<std::string>& args, int timeout_s) {
  std::vector<std::string> argv = {AR_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_in(repo.dir, argv, timeout_s);
}

ar::ProcessResult run_cli_env(const TempRepo& repo, const std::vector<std::string>& args,
                              const std::map<std::string, std::string>& env, int timeout_s) {
  std::vector<std::string> argv = {AR_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_in(repo.dir, argv, timeout_s, env);
}

std::vector<fs::path> files_containing(const fs::path& dir, const std::string& needle) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec || !it->is_regular_file(ec)) continue;
    std::ifstream in(it->path(), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    if (s.str().find(needle) != std::string::npos) out.push_back(it->path());
  }
  return out;
}

Background::Background(const TempRepo& repo, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {AR_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) env.push_back(*e);
  for (const auto& [k, v] : test_env()) env.push_back(k + "=" + v);
  std::vector<char*> cenv;
  for (auto& e : env) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addchdir_np(&fa, repo.dir.c_str());
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  std::string errlog = (repo.dir / "background.stderr").string();
  posix_spawn_file_actions_addopen(&fa, 2, errlog.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (posix_spawn(&pid_, AR_BINARY, &fa, nullptr, cargv.data(), cenv.data()) != 0) pid_ = -1;
  posix_spawn_file_actions_destroy(&fa);
}

Background::~Background() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

void Background::signal(int sig) {
  if (pid_ > 0) ::kill(pid_, sig);
}

int Background::wait(int timeout_s) {
  for (int i = 0; i < timeout_s * 10; ++i) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      pid_ = -1;
      if (WIFEXITED(status)) return WEXITSTATUS(status);
      if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return -1;
}

std::vector<nlohmann::json> read_log(const fs::path& file) {
  std::vector<nlohmann::json> out;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

std::vector<nlohmann::json> of_type(const std::vector<nlohmann::json>& lines, const std::string& type) {
  std::vector<nlohmann::json> out;
  for (const auto& l : lines)
    if (l.value("type", "") == type) out.push_back(l);
  return out;
}

fs::path only_run_dir(const TempRepo& repo) {
  fs::path runs = repo.dir / ".autoresearch" / "runs";
  std::vector<fs::path> dirs;
  if (fs::exists(runs))
    for (const auto& e : fs::directory_iterator(runs)) dirs.push_back(e.path());
  if (dirs.size() != 1) throw std::runtime_error("expected exactly one run, found " + std::to_string(dirs.size()));
  return dirs[0];
}

bool wait_until(const std::function<bool()>& cond, int timeout_s) {
  for (int i = 0; i < timeout_s * 10; ++i) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

}  // namespace e2e
