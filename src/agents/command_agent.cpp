#include "autoresearch/agents/command_agent.h"

#include <fmt/format.h>

#include <sstream>

#include "autoresearch/agents/context_pack.h"
#include "autoresearch/util/fs.h"
#include "autoresearch/util/redact.h"
#include "autoresearch/util/subprocess.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

constexpr size_t kOutputTail = 4000;   // of stdout and of stderr, into the log

std::string tail(const std::string& s, size_t n) { return s.size() <= n ? s : "..." + s.substr(s.size() - n); }

// The sandboxed command's own temporary folder (TMPDIR), beside the pack.
fs::path private_tmp(const AgentContext& ctx) { return ctx.context_dir.parent_path() / "agent-tmp"; }

std::string first_word(const std::string& command) {
  std::istringstream in(command);
  std::string w;
  in >> w;
  return fs::path(w).filename().string();
}

}  // namespace

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string expand_command(const std::string& command, const fs::path& context_dir) {
  std::string out = command;
  const std::string key = "{context}";
  const std::string quoted = shell_quote(context_dir.string());
  for (size_t at = out.find(key); at != std::string::npos; at = out.find(key, at + quoted.size()))
    out.replace(at, key.size(), quoted);
  return out;
}

std::string command_idea(const fs::path& context_dir, const std::string& stdout_text) {
  auto clean = [](std::string s) {
    while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
    size_t b = s.find_first_not_of(" \t");
    s = b == std::string::npos ? "" : s.substr(b);
    return s.size() > 300 ? s.substr(0, 297) + "..." : s;
  };
  std::error_code ec;
  if (fs::is_regular_file(context_dir / "idea.txt", ec)) {
    std::istringstream in(read_file(context_dir / "idea.txt"));
    std::string line;
    while (std::getline(in, line))
      if (!clean(line).empty()) return clean(line);
  }
  std::string idea;
  std::istringstream in(stdout_text);
  std::string line;
  while (std::getline(in, line)) {
    auto at = line.find("IDEA:");
    if (at != std::string::npos) idea = clean(line.substr(at + 5));
  }
  return idea;
}

std::vector<std::string> sandbox_argv(const std::vector<fs::path>& writable) {
  std::vector<std::string> a = {"bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                                "--unshare-pid", "--die-with-parent", "--new-session"};
  for (const auto& p : writable) {
    std::string s = fs::absolute(p).lexically_normal().string();
    a.insert(a.end(), {"--bind", s, s});
  }
  return a;
}

std::string sandbox_unavailable_reason(ProcessRunner& runner) {
  if (find_program("bwrap").empty())
    return "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)";
  ProcessSpec spec;
  spec.argv = sandbox_argv({});
  spec.argv.push_back("/bin/true");
  spec.timeout = std::chrono::seconds(20);
  auto r = runner.run(spec);
  if (r.ok()) return "";
  std::string why = r.err.empty() ? r.describe() : r.err;
  while (!why.empty() && why.back() == '\n') why.pop_back();
  return "bubblewrap cannot create its namespaces here (" + why +
         "); the kernel or a security policy forbids unprivileged user namespaces "
         "(e.g. sysctl kernel.unprivileged_userns_clone=0, or AppArmor's restrict_unprivileged_userns)";
}

CommandAgent::CommandAgent(CommandAgentSettings s, ProcessRunner& runner, const std::atomic<bool>* cancel)
    : s_(std::move(s)), runner_(runner), cancel_(cancel) {}

std::vector<std::string> CommandAgent::argv(const AgentContext& ctx) const {
  std::vector<std::string> a;
  if (s_.sandbox) {
    std::vector<fs::path> writable = {ctx.worktree, ctx.context_dir, private_tmp(ctx)};
    for (const auto& w : s_.sandbox_writable) writable.push_back(w);
    a = sandbox_argv(writable);
  }
  a.insert(a.end(), {"/bin/sh", "-c", expand_command(s_.command, ctx.context_dir)});
  return a;
}

std::vector<Proposal> CommandAgent::propose(const AgentContext& ctx, int) {
  if (ctx.pack) ctx.pack->write_dir(ctx.context_dir);
  else fs::create_directories(ctx.context_dir);
  std::error_code ec;
  fs::remove(ctx.context_dir / "idea.txt", ec);

  ProcessSpec spec;
  spec.argv = argv(ctx);
  spec.cwd = ctx.worktree;
  spec.env = {{"AUTORESEARCH_CONTEXT_DIR", ctx.context_dir.string()},
              {"AUTORESEARCH_ITERATION", std::to_string(ctx.iteration)},
              {"AUTORESEARCH_PACKAGE_DIR", ctx.package_dir.string()},
              {"AUTORESEARCH_WORKTREE", ctx.worktree.string()},
              {"AUTORESEARCH_KERNEL", s_.kernel}};
  if (s_.sandbox) {
    fs::create_directories(private_tmp(ctx));
    spec.env["TMPDIR"] = private_tmp(ctx).string();
  }
  spec.timeout = std::chrono::milliseconds(static_cast<long long>(s_.timeout_s * 1000));
  spec.cancel = cancel_;
  spec.max_output_bytes = 1u << 20;
  ProcessResult r = runner_.run(spec);

  Proposal p;
  p.agent = name();
  p.model = first_word(s_.command);
  p.edited_worktree = true;
  p.base_tunables = ctx.incumbent_tunables;
  p.base_id = ctx.incumbent_id;
  p.tunables = ctx.incumbent_tunables;   // the driver reads the worktree's tunables file
  AgentCall call;
  call.seconds = r.seconds;
  call.finish = r.describe();
  call.model = p.model;
  p.calls.push_back(call);
  p.detail = {{"command", redact_secrets(s_.command)},
              {"sandbox", s_.sandbox},
              {"exit", r.describe()},
              {"seconds", r.seconds},
              {"stdout_tail", redact_secrets(tail(r.out, kOutputTail))},
              {"stderr_tail", redact_secrets(tail(r.err, kOutputTail))}};

  if (r.cancelled) {
    p.failure = AgentFailure{AgentFailure::Kind::Output, "interrupted while the agent command ran"};
    return {p};
  }
  if (r.spawn_failed) {
    p.failure = AgentFailure{AgentFailure::Kind::Fatal, "the agent command could not be started: " + r.spawn_error};
    return {p};
  }
  if (r.timed_out) {
    p.failure = AgentFailure{AgentFailure::Kind::Unavailable,
                             fmt::format("the agent command timed out after {:.0f} s (its process group was killed; "
                                         "--agent-timeout-s sets the limit)",
                                         s_.timeout_s)};
    return {p};
  }
  if (r.signal == 0 && r.exit_code == kCommandAgentDone) return {};
  if (r.signal == 0 && (r.exit_code == 126 || r.exit_code == 127)) {
    p.failure = AgentFailure{AgentFailure::Kind::Fatal,
                             fmt::format("the agent command cannot be run (exit {}: {}): check --agent-cmd",
                                         r.exit_code, redact_secrets(tail(r.err, 300)))};
    return {p};
  }
  if (!r.ok()) {
    std::string last = redact_secrets(tail(r.err.empty() ? r.out : r.err, 300));
    while (!last.empty() && last.back() == '\n') last.pop_back();
    p.failure = AgentFailure{AgentFailure::Kind::Unavailable,
                             fmt::format("the agent command failed ({}){}", r.describe(), last.empty() ? "" : ": " + last)};
    return {p};
  }
  p.idea = command_idea(ctx.context_dir, r.out);
  return {p};
}

}  // namespace ar
