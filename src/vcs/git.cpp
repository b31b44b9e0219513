// The Git interface over the `git` command. Every call is `git -C <dir> ...`
// through the ProcessRunner, so the tests (and a dry run) can watch or fake it.
#include "autoresearch/vcs/git.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <set>

#include "autoresearch/util/subprocess.h"

namespace ar {
namespace {

namespace fs = std::filesystem;
using Args = std::vector<std::string>;

constexpr std::chrono::seconds kGitTimeout{60};
// `show` and `diff` return whole texts; the runner's default 8 MiB tail would cut them.
constexpr size_t kMaxTextBytes = 256u << 20;

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find(sep, begin);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

// `git status --porcelain -z`: "XY path\0", and for renames/copies a second
// "\0old" entry; both names count as changed.
std::vector<std::string> parse_status(const std::string& text) {
  std::set<std::string> paths;
  auto entries = split(text, '\0');
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string& e = entries[i];
    if (e.size() < 4) continue;
    paths.insert(e.substr(3));
    if ((e[0] == 'R' || e[0] == 'C') && i + 1 < entries.size()) paths.insert(entries[++i]);
  }
  return {paths.begin(), paths.end()};
}

class RealGit : public Git {
 public:
  RealGit(ProcessRunner& runner, fs::path dir) : runner_(runner), dir_(std::move(dir)) {}

  std::optional<std::string> resolve(const std::string& rev) override {
    auto r = git({"rev-parse", "--verify", "--quiet", rev + "^{commit}"});
    if (!r.ok()) return std::nullopt;
    return trim(r.out);
  }

  fs::path toplevel() override { return trim(check({"rev-parse", "--show-toplevel"}).out); }

  std::vector<std::string> dirty_paths(const std::string& pathspec) override {
    Args args = {"status", "--porcelain", "-z", "--untracked-files=all"};
    if (!pathspec.empty()) {
      args.push_back("--");
      args.push_back(pathspec);
    }
    return parse_status(check(args).out);
  }

  bool branch_exists(const std::string& branch) override {
    return git({"show-ref", "--verify", "--quiet", "refs/heads/" + branch}).ok();
  }

  void add_worktree(const fs::path& dir, const std::string& branch, const std::string& start,
                    bool create_branch) override {
    std::string where = fs::absolute(dir).lexically_normal().string();
    if (create_branch) {
      check({"worktree", "add", "-q", "-b", branch, where, start});
    } else {
      check({"worktree", "add", "-q", where, branch});
    }
  }

  void remove_worktree(const fs::path& dir) override {
    std::string where = fs::absolute(dir).lexically_normal().string();
    auto removed = git({"worktree", "remove", "--force", where});
    // Prune even when remove failed: a worktree whose folder was deleted by hand
    // is only forgotten by prune.
    check({"worktree", "prune"});
    std::error_code ec;
    if (!removed.ok() && fs::exists(where, ec)) throw error({"worktree", "remove", where}, removed);
  }

  std::vector<std::string> changed_files(const std::string& ignored_under) override {
    auto paths = dirty_paths("");
    if (!ignored_under.empty()) {
      auto all = parse_status(
          check({"status", "--porcelain", "-z", "--untracked-files=all", "--ignored=matching", "--", ignored_under})
              .out);
      paths.insert(paths.end(), all.begin(), all.end());
      std::sort(paths.begin(), paths.end());
      paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
    }
    return paths;
  }

  std::string diff() override {
    // Untracked files are staged into a throwaway copy of the index, so they show
    // as additions while the real index (and the user's staging) is untouched.
    fs::path index = git_path("index");
    fs::path scratch = index;
    static std::atomic<unsigned> counter{0};
    scratch += ".autoresearch-diff." + std::to_string(::getpid()) + "." +
               std::to_string(counter++);
    std::error_code ec;
    fs::copy_file(index, scratch, fs::copy_options::overwrite_existing, ec);
    std::map<std::string, std::string> env = {{"GIT_INDEX_FILE", scratch.string()}};
    auto added = git({"add", "-A"}, env);
    ProcessResult diff;
    if (added.ok()) {
      diff = git({"diff", "--cached", "--no-color", "--no-ext-diff", "HEAD"}, env, "",
                 kMaxTextBytes);
    }
    fs::remove(scratch, ec);
    if (!added.ok()) throw error({"add", "-A"}, added);
    if (!diff.ok()) throw error({"diff", "--cached", "HEAD"}, diff);
    return diff.out;
  }

  std::string commit_all(const std::string& message) override {
    check({"add", "-A"});
    // Tool commits: the user's hooks and signing prompts must not stall an
    // unattended night; an identity is supplied only where none is configured.
    Args args = {"-c", "commit.gpgsign=false"};
    if (!has_config("user.name")) args.insert(args.end(), {"-c", "user.name=autoresearch"});
    if (!has_config("user.email")) {
      args.insert(args.end(), {"-c", "user.email=autoresearch@localhost"});
    }
    args.insert(args.end(), {"commit", "-q", "--no-verify", "--allow-empty", "-F", "-"});
    check(args, {}, message);
    return head();
  }

  void discard_changes() override {
    check({"reset", "-q", "--hard", "HEAD"});
    check({"clean", "-fdqx"});
  }

  std::string current_branch() override {
    auto r = git({"symbolic-ref", "--quiet", "--short", "HEAD"});
    return r.ok() ? trim(r.out) : "";
  }

  void restore(const std::string& branch, const std::string& commit) override {
    check({"checkout", "-q", "-f", branch});
    check({"reset", "-q", "--hard", commit});
    check({"clean", "-fdqx"});
  }

  std::vector<CommitInfo> commits(const std::string& range) override {
    // NUL-separated records of "sha\nmessage".
    auto out = check({"log", "--reverse", "-z", "--format=%H%n%B", range, "--"}).out;
    std::vector<CommitInfo> list;
    for (const auto& record : split(out, '\0')) {
      size_t nl = record.find('\n');
      if (nl == std::string::npos || nl == 0) continue;
      list.push_back({record.substr(0, nl), record.substr(nl + 1)});
    }
    return list;
  }

  std::optional<std::string> show(const std::string& rev, const std::string& path) override {
    // cat-file gives the blob's exact bytes (no textconv, no filters).
    auto r = git({"cat-file", "blob", rev + ":" + path}, {}, "", kMaxTextBytes);
    if (!r.ok()) return std::nullopt;
    return r.out;
  }

  std::vector<std::string> files_at(const std::string& rev, const std::string& path) override {
    // --full-tree: the path and the names are from the top, whatever folder the object is bound to.
    auto out = check({"ls-tree", "-r", "-z", "--full-tree", "--name-only", rev + "^{commit}", "--", path}).out;
    std::vector<std::string> files;
    for (auto& name : split(out, '\0'))
      if (!name.empty()) files.push_back(name);
    std::sort(files.begin(), files.end());
    return files;
  }

  std::string head() override { return trim(check({"rev-parse", "HEAD"}).out); }

  std::vector<std::string> log_subjects(const std::string& range) override {
    auto out = check({"log", "--reverse", "--format=%s", range, "--"}).out;
    return split(out, '\n');
  }

 private:
  ProcessResult git(const Args& args, const std::map<std::string, std::string>& env = {},
                    const std::string& input = "", size_t max_output = 8u << 20) {
    ProcessSpec spec;
    spec.argv = {"git", "-C", dir_.string()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = env;
    spec.env["GIT_TERMINAL_PROMPT"] = "0";  // never wait for a password
    spec.env["LC_ALL"] = "C";               // messages we quote are stable
    spec.timeout = kGitTimeout;
    spec.stdin_data = input;
    spec.max_output_bytes = max_output;
    return runner_.run(spec);
  }

  ProcessResult check(const Args& args, const std::map<std::string, std::string>& env = {},
                      const std::string& input = "") {
    auto r = git(args, env, input);
    if (!r.ok()) throw error(args, r);
    return r;
  }

  GitError error(const Args& args, const ProcessResult& r) {
    std::string command = "git";
    for (const auto& a : args) command += " " + a;
    std::string why = trim(r.err);
    if (why.empty() || !r.spawn_error.empty() || r.timed_out) why = r.describe() + " " + why;
    return GitError(command + " (in " + dir_.string() + "): " + trim(why));
  }

  bool has_config(const std::string& key) {
    auto it = config_known_.find(key);
    if (it == config_known_.end()) {
      auto r = git({"config", "--get", key});
      it = config_known_.emplace(key, r.ok() && !trim(r.out).empty()).first;
    }
    return it->second;
  }

  fs::path git_path(const std::string& name) {
    fs::path p = trim(check({"rev-parse", "--git-path", name}).out);
    return p.is_absolute() ? p : dir_ / p;
  }

  ProcessRunner& runner_;
  fs::path dir_;
  std::map<std::string, bool> config_known_;
};

}  // namespace

std::unique_ptr<Git> make_real_git(ProcessRunner& runner, const fs::path& dir) {
  return std::make_unique<RealGit>(runner, dir);
}

}  // namespace ar
