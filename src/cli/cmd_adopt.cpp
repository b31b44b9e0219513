// `autoresearch adopt RUN [--patch FILE]`: the run's best, brought into the
// user's current branch as one commit (the run's branch squashed onto HEAD,
// only when it applies cleanly) or written as a patch file. Only the run's
// package is touched; nothing is merged by guesswork.
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"
#include "autoresearch/vcs/git.h"
#include "commands.h"
#include "run_admin.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

struct AdoptArgs {
  std::string run;
  std::string patch;
};

std::string result_text(const RunSummary& run) {
  if (!run.result.speedup) return "not measured";
  return fmt::format("{:.3f}x vs its start, {}", *run.result.speedup, run.result.measured);
}

std::string commit_message(const RunSummary& run, CheckoutGit& git, const std::string& head) {
  std::string m = fmt::format("autoresearch: adopt run {}: {} {}\n\n", run.id, run.kernel,
                              run.result.speedup ? fmt::format("{:.3f}x vs its start", *run.result.speedup)
                                                 : std::string("(not measured)"));
  m += fmt::format("The best of run {}, squashed from branch {} ({}): {} kept of {} candidates.\n", run.id, run.branch,
                   head.substr(0, 12), run.keeps, run.candidates);
  m += fmt::format("Result: {}.\n\nKept, in order:\n", result_text(run));
  std::string subjects = git.check({"log", "--reverse", "--format=%s", run.base_commit + ".." + head});
  size_t start = 0;
  while (start < subjects.size()) {
    size_t end = subjects.find('\n', start);
    if (end == std::string::npos) end = subjects.size();
    m += "  " + subjects.substr(start, end - start) + "\n";
    start = end + 1;
  }
  m += fmt::format("\nLog: .autoresearch/runs/{}/{}\n", run.id, kLogFileName);
  return m;
}

}  // namespace

CommandAction add_adopt_command(CLI::App& sub) {
  auto a = std::make_shared<AdoptArgs>();
  sub.add_option("run", a->run, "run id (`autoresearch runs` lists them)")->required();
  sub.add_option("--patch", a->patch, "write the change as a patch file (- for stdout) instead of committing it");
  sub.footer(
      "Without --patch: one commit on your current branch with the run's change to its package, when your\n"
      "tree under the package is clean and the change applies to your HEAD; refused otherwise.\n"
      "Exit codes: 0 adopted or written; 2 no such run, nothing kept, a dirty tree, or a change that does\n"
      "not apply; 4 git failed.");
  return [a] {
    Paths p = discover_paths(fs::current_path());
    RunSummary run = find_run(p, a->run);
    RealProcessRunner runner;
    CheckoutGit git(runner, p.repo);
    if (!git.run({"show-ref", "--verify", "--quiet", "refs/heads/" + run.branch}).ok())
      throw usage_error(fmt::format("run {}: its branch {} is gone (deleted, or cleaned with --branch); nothing "
                                    "to adopt", run.id, run.branch));
    std::string head = git.check({"rev-parse", run.branch});
    std::vector<std::string> diff = {"diff", "--binary", "--full-index", "--no-color", "--no-ext-diff",
                                     run.base_commit, head, "--"};
    if (!run.package.empty()) diff.push_back(run.package);
    ProcessResult diffed = git.run(diff);   // raw: trimming would cut a trailing blank context line
    if (!diffed.ok())
      throw Fatal(kExitInfrastructure, fmt::format("git diff of run {} failed: {}", run.id, first_line(diffed.err)));
    const std::string& patch = diffed.out;
    if (patch.empty())
      throw usage_error(fmt::format("run {} kept nothing (its branch holds no change to {}): nothing to adopt",
                                    run.id, run.package.empty() ? "its package" : run.package));
    if (run.state == RunState::Running)
      fmt::print(stderr, "run {} is still running: adopting its best so far\n", run.id);

    if (!a->patch.empty()) {
      if (a->patch == "-") {
        std::cout << patch;
      } else {
        write_file_atomic(a->patch, patch);
        fmt::print(stderr, "wrote {}: run {}'s change to {} ({} kept, {}); apply it with `git apply {}`\n", a->patch,
                   run.id, run.package, run.keeps, result_text(run), a->patch);
      }
      return 0;
    }

    auto checkout = make_real_git(runner, p.repo);
    auto dirty = checkout->dirty_paths(run.package);
    if (!dirty.empty()) {
      std::string list;
      for (size_t i = 0; i < dirty.size() && i < 5; ++i) list += "\n  " + dirty[i];
      throw usage_error(fmt::format("uncommitted changes under {}: commit or stash them first (adopt makes one "
                                    "commit of the run's change alone), or use --patch FILE:{}",
                                    run.package, list));
    }
    if (git.run({"apply", "--check", "--reverse", "--index"}, patch).ok() &&
        !git.run({"apply", "--check", "--index"}, patch).ok())
      throw usage_error(fmt::format("your HEAD already holds run {}'s change: nothing to adopt", run.id));
    ProcessResult check = git.run({"apply", "--check", "--index"}, patch);
    if (!check.ok())
      throw usage_error(fmt::format(
          "run {}'s change does not apply to your HEAD ({}): {} changed since the run started from {}. Write it "
          "as a patch (autoresearch adopt {} --patch run.patch) and merge by hand, or `git merge --squash {}`",
          run.id, first_line(check.err), run.package, run.base_commit.substr(0, 12), run.id, run.branch));
    git.check({"apply", "--index"}, patch);

    std::vector<std::string> commit = git.identity_fallback();
    commit.insert(commit.begin(), {"-c", "commit.gpgsign=false"});
    commit.insert(commit.end(), {"commit", "-q", "-F", "-", "--", run.package});
    ProcessResult done = git.run(commit, commit_message(run, git, head));
    if (!done.ok())
      throw Fatal(kExitInfrastructure,
                  fmt::format("the change of run {} is applied and staged under {}, but the commit failed ({}): {}",
                              run.id, run.package, done.describe(), first_line(done.err + done.out)));
    std::string sha = git.check({"rev-parse", "--short", "HEAD"});
    std::string branch = git.check({"rev-parse", "--abbrev-ref", "HEAD"});
    fmt::print(stderr, "adopted run {} into {} as {}: {}, {} kept\n", run.id, branch, sha, result_text(run),
               run.keeps);
    return 0;
  };
}

}  // namespace ar
