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
