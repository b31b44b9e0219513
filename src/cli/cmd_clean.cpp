// `autoresearch clean RUN [--branch]`: removes a run's worktree (git worktree
// remove), so its branch no longer counts as checked out, and with --branch
// the branch too. The run's folder and log stay: they are the record.
#include <fmt/format.h>

#include "autoresearch/util/errors.h"
#include "autoresearch/util/file_lock.h"
#include "autoresearch/vcs/git.h"
#include "commands.h"
#include "run_admin.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

struct CleanArgs {
  std::string run;
  bool branch = false;
};

}  // namespace

CommandAction add_clean_command(CLI::App& sub) {
  auto a = std::make_shared<CleanArgs>();
  sub.add_option("run", a->run, "run id (`autoresearch runs` lists them)")->required();
  sub.add_flag("--branch", a->branch, "delete the run's branch too (then the run cannot be resumed)");
  sub.footer("Refuses a running run. Exit codes: 0 cleaned (or nothing left to clean); 2 no such run, or running;\n"
             "4 git failed.");
  return [a] {
    Paths p = discover_paths(fs::current_path());
    RunSummary run = find_run(p, a->run);
    // Held while cleaning, so a resume cannot start on a half-removed worktree.
    std::string holder;
    auto lock = FileLock::try_acquire(run.dir / "lock", "autoresearch clean " + run.id, &holder);
    if (!lock)
      throw usage_error(fmt::format("run {} is running ({}); stop it first (Ctrl-C where it runs) and clean it then",
                                    run.id, holder));
    RealProcessRunner runner;
    CheckoutGit git(runner, p.repo);
    bool did = false;
    fs::path worktree = run.dir / "worktree";
    std::error_code ec;
    const bool registered = git.check({"worktree", "list", "--porcelain"}).find(worktree.string()) != std::string::npos;
    if (fs::exists(worktree, ec) || registered) {
      try {
        make_real_git(runner, p.repo)->remove_worktree(worktree);
      } catch (const GitError& e) {
        throw Fatal(kExitInfrastructure, std::string("could not remove the worktree: ") + e.what());
      }
      fmt::print(stderr, "removed the worktree {}\n", worktree.string());
      did = true;
    }
    if (a->branch) {
      if (git.run({"show-ref", "--verify", "--quiet", "refs/heads/" + run.branch}).ok()) {
        std::string sha = git.check({"rev-parse", "--short", run.branch});
        ProcessResult r = git.run({"branch", "-D", run.branch});
        if (!r.ok())
          throw usage_error(fmt::format("could not delete branch {}: {}", run.branch, first_line(r.err)));
        fmt::print(stderr, "deleted branch {} (was {}); run {} can no longer be resumed\n", run.branch, sha, run.id);
        did = true;
      }
    }
    if (!did) {
      fmt::print(stderr, "nothing to clean for run {}: its worktree is gone{}\n", run.id,
                 a->branch ? " and so is its branch" : "");
      return 0;
    }
    fmt::print(stderr, "the log stays at {}{}\n", (run.dir / kLogFileName).string(),
               a->branch ? "" : fmt::format("; `autoresearch run --resume {}` recreates the worktree", run.id));
    return 0;
  };
}

}  // namespace ar
