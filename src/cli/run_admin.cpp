#include "run_admin.h"

#include <fmt/format.h>

#include "autoresearch/util/errors.h"

namespace fs = std::filesystem;

namespace ar {

std::string first_line(const std::string& text) {
  std::string s = text.substr(0, text.find('\n'));
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string latest_run(const Paths& p) {
  std::string best;
  fs::file_time_type when{};
  if (fs::is_directory(p.runs()))
    for (const auto& e : fs::directory_iterator(p.runs())) {
      auto f = e.path() / kLogFileName;
      if (!fs::exists(f)) continue;
      auto t = fs::last_write_time(f);
      if (best.empty() || t > when) {
        best = e.path().filename().string();
        when = t;
      }
    }
  if (best.empty()) throw usage_error("no runs yet under " + p.runs().string() + " (start one with `autoresearch run`)");
  return best;
}

fs::path run_log_file(const Paths& p, const std::string& run) {
  fs::path given(run);
  if (fs::is_regular_file(given)) return given;
  if (fs::is_regular_file(given / kLogFileName)) return given / kLogFileName;
  fs::path f = p.run_dir(run) / kLogFileName;
  if (!fs::exists(f)) throw usage_error(fmt::format("no run '{}' (looked for {})", run, f.string()));
  return f;
}

bool names_log_outside_repo(const std::string& run) {
  return !run.empty() && (fs::is_regular_file(run) || fs::is_regular_file(fs::path(run) / kLogFileName));
}

RunSummary find_run(const Paths& paths, const std::string& id) {
  fs::path dir = paths.run_dir(id);
  std::error_code ec;
  if (id.empty() || id.find('/') != std::string::npos || !fs::exists(dir / kLogFileName, ec)) {
    std::string list;
    for (const RunSummary& r : list_runs(paths.runs())) list += (list.empty() ? "" : ", ") + r.id;
    throw usage_error(fmt::format("no run '{}' under {} (runs: {}; `autoresearch runs` lists them)", id,
                                  paths.runs().string(), list.empty() ? "none" : list));
  }
  RunSummary r = summarize_run(dir);
  if (r.state == RunState::Unreadable) throw usage_error(fmt::format("run {}: {}", id, r.detail));
  if (r.branch.empty() || r.base_commit.empty())
    throw usage_error(fmt::format("run {}: its log header names no branch or base commit", id));
  return r;
}

ProcessResult CheckoutGit::run(const std::vector<std::string>& args, const std::string& input) {
  ProcessSpec spec;
  spec.argv = {"git", "-C", repo_.string()};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env["GIT_TERMINAL_PROMPT"] = "0";
  spec.env["LC_ALL"] = "C";
  spec.timeout = std::chrono::seconds(120);
  spec.stdin_data = input;
  spec.max_output_bytes = 256u << 20;   // whole diffs
  return runner_.run(spec);
}

std::string CheckoutGit::check(const std::vector<std::string>& args, const std::string& input) {
  ProcessResult r = run(args, input);
  if (!r.ok()) {
    std::string command = "git";
    for (const auto& a : args) command += " " + a;
    throw Fatal(kExitInfrastructure, fmt::format("{} failed ({}): {}", command, r.describe(), first_line(r.err)));
  }
  std::string out = r.out;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::vector<std::string> CheckoutGit::identity_fallback() {
  std::vector<std::string> args;
  auto has = [&](const char* key) {
    ProcessResult r = run({"config", "--get", key});
    return r.ok() && !r.out.empty();
  };
  if (!has("user.name")) args.insert(args.end(), {"-c", "user.name=autoresearch"});
  if (!has("user.email")) args.insert(args.end(), {"-c", "user.email=autoresearch@localhost"});
  return args;
}

}  // namespace ar
