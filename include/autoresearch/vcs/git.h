#pragma once
// Everything the loop asks of git, behind one interface; the real one drives the
// `git` command through a ProcessRunner, the fake (tests/unit/fakes) keeps state
// in memory. All paths are relative to the repository or worktree the object is
// bound to.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ar {

class ProcessRunner;

// A git failure the caller cannot act on; carries git's own message.
struct GitError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Git {
 public:
  virtual ~Git() = default;

  // `git rev-parse --verify REV^{commit}`; nullopt if REV does not exist.
  virtual std::optional<std::string> resolve(const std::string& rev) = 0;
  // The top of the working tree this object is bound to.
  virtual std::filesystem::path toplevel() = 0;
  // Paths under `pathspec` with uncommitted changes (tracked or untracked, not ignored).
  virtual std::vector<std::string> dirty_paths(const std::string& pathspec) = 0;
  virtual bool branch_exists(const std::string& branch) = 0;
  // `git worktree add -b BRANCH DIR START` (or without -b when the branch exists
  // and create_branch is false).
  virtual void add_worktree(const std::filesystem::path& dir, const std::string& branch,
                            const std::string& start, bool create_branch) = 0;
  virtual void remove_worktree(const std::filesystem::path& dir) = 0;

  // Within a worktree:
  // files changed against HEAD, untracked ones included; ignored files too when
  // they lie under `ignored_under` (a package folder: an ignored file there
  // could still be #included by the candidate).
  virtual std::vector<std::string> changed_files(const std::string& ignored_under = "") = 0;
  // unified diff against HEAD, untracked files included as additions.
  virtual std::string diff() = 0;
  // stage everything, commit with MESSAGE, return the new commit's sha.
  virtual std::string commit_all(const std::string& message) = 0;
  // drop every uncommitted change (tracked, untracked and ignored: the worktree
  // is the tool's own, and nothing an agent left behind may survive).
  virtual void discard_changes() = 0;
  // The checked-out branch; empty when HEAD is detached.
  virtual std::string current_branch() = 0;
  // Puts the worktree back on BRANCH at COMMIT with nothing uncommitted, whatever
  // an agent did to HEAD (commits, resets, checkouts of other branches).
  virtual void restore(const std::string& branch, const std::string& commit) = 0;
  // Commits in RANGE (`A..B`), oldest first: sha and full message.
  struct CommitInfo {
    std::string sha;
    std::string message;
  };
  virtual std::vector<CommitInfo> commits(const std::string& range) = 0;
  // `git show REV:PATH`; nullopt when absent.
  virtual std::optional<std::string> show(const std::string& rev, const std::string& path) = 0;
  // The files under folder PATH in commit REV (repo-relative paths, sorted); empty when it has none.
  // Throws GitError when REV is not a commit.
  virtual std::vector<std::string> files_at(const std::string& rev, const std::string& path) = 0;
  // sha of HEAD
  virtual std::string head() = 0;
  // messages of commits in RANGE (`A..B`), oldest first
  virtual std::vector<std::string> log_subjects(const std::string& range) = 0;
};

// Binds to `dir` (a checkout or worktree). Commits use the user's identity when
// configured, else "autoresearch <autoresearch@localhost>", so a bare CI box works.
std::unique_ptr<Git> make_real_git(ProcessRunner& runner, const std::filesystem::path& dir);

}  // namespace ar
