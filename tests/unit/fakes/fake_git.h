#pragma once
// An in-memory Git for loop tests: the working tree is a map path -> content,
// commits are snapshots of it. Enough of git's behaviour for keep/revert logic:
// changed_files/diff against HEAD, commit_all, discard_changes (ignored paths
// survive, as with `git clean -fd`), branches, worktree calls recorded.
//
//   FakeGit git({{"kernels/k/kernel.cu", "v1"}});
//   git.write("kernels/k/kernel.cu", "v2");
//   git.commit_all("faster");          // git.log_subjects(base + "..HEAD") == {"faster"}
#include <cstdio>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "autoresearch/vcs/git.h"

namespace ar {

class FakeGit : public Git {
 public:
  using Tree = std::map<std::string, std::string>;

  struct Commit {
    std::string sha;
    std::string parent;  // empty for the root
    std::string message;
    Tree tree;
  };
  struct WorktreeCall {
    std::filesystem::path dir;
    std::string branch;
    std::string start;
    bool create_branch = false;
  };

  FakeGit() : FakeGit(Tree{}) {}
  // FakeGit git({{"path", "content"}, ...}): the first commit holds these files.
  FakeGit(std::initializer_list<Tree::value_type> files) : FakeGit(Tree(files)) {}
  explicit FakeGit(Tree files, std::string branch = "main") : branch_(std::move(branch)) {
    files_ = std::move(files);
    head_ = make_commit("", "initial", files_);
    branches_[branch_] = head_;
  }

  // --- helpers for tests -------------------------------------------------
  void write(const std::string& path, const std::string& content) { files_[path] = content; }
  void remove(const std::string& path) { files_.erase(path); }
  std::optional<std::string> read(const std::string& path) const {
    auto it = files_.find(path);
    if (it == files_.end()) return std::nullopt;
    return it->second;
  }
  const Tree& files() const { return files_; }
  // Paths under an ignored prefix are never reported, committed or discarded.
  void ignore(const std::string& prefix) { ignored_.insert(prefix); }
  void set_toplevel(std::filesystem::path p) { toplevel_ = std::move(p); }
  void set_branch(const std::string& name) { branch_ = name; branches_[name] = head_; }
  const std::vector<Commit>& commits() const { return commits_; }
  const Commit& commit(const std::string& sha) const { return commits_.at(index_of(sha)); }
  const std::vector<WorktreeCall>& worktrees_added() const { return added_; }
  const std::vector<std::filesystem::path>& worktrees_removed() const { return removed_; }
  int discard_count() const { return discards_; }
  // The next commit_all throws GitError (e.g. to test a failing keep).
  void fail_next_commit(std::string why = "fatal: simulated failure") { fail_commit_ = why; }

  // --- Git -----------------------------------------------------------------
  std::optional<std::string> resolve(const std::string& rev) override {
    std::string base = rev;
    int back = 0;
    if (auto tilde = rev.find('~'); tilde != std::string::npos) {
      base = rev.substr(0, tilde);
      back = tilde + 1 < rev.size() ? std::stoi(rev.substr(tilde + 1)) : 1;
    }
    std::string sha;
    if (base == "HEAD") {
      sha = head_;
    } else if (auto b = branches_.find(base); b != branches_.end()) {
      sha = b->second;
    } else {
      for (const auto& c : commits_) {
        if (!base.empty() && c.sha.compare(0, base.size(), base) == 0) sha = c.sha;
      }
    }
    for (; !sha.empty() && back > 0; --back) sha = commit(sha).parent;
    if (sha.empty()) return std::nullopt;
    return sha;
  }

  std::filesystem::path toplevel() override { return toplevel_; }

  std::vector<std::string> dirty_paths(const std::string& pathspec) override {
    std::vector<std::string> out;
    for (const auto& p : changed_files()) {
      if (under(p, pathspec)) out.push_back(p);
    }
    return out;
  }

  bool branch_exists(const std::string& branch) override { return branches_.count(branch) > 0; }

  void add_worktree(const std::filesystem::path& dir, const std::string& branch,
                    const std::string& start, bool create_branch) override {
    if (create_branch) {
      if (branch_exists(branch)) throw GitError("fatal: a branch named '" + branch + "' already exists");
      auto sha = resolve(start);
      if (!sha) throw GitError("fatal: invalid reference: " + start);
      branches_[branch] = *sha;
    } else if (!branch_exists(branch)) {
      throw GitError("fatal: invalid reference: " + branch);
    }
    added_.push_back({dir, branch, start, create_branch});
  }

  void remove_worktree(const std::filesystem::path& dir) override { removed_.push_back(dir); }

  std::vector<std::string> changed_files(const std::string& ignored_under = "") override {
    std::set<std::string> out;
    const Tree& base = head_tree();
    for (const auto& [path, content] : files_) {
      auto it = base.find(path);
      bool counted = !ignored(path) || (!ignored_under.empty() && under(path, ignored_under));
      if (counted && (it == base.end() || it->second != content)) out.insert(path);
    }
    for (const auto& [path, content] : base) {
      if (!files_.count(path)) out.insert(path);
    }
    return {out.begin(), out.end()};
  }

  // Whole-file hunks: enough for logging and for tests that look for a line.
  std::string diff() override {
    std::string out;
    const Tree& base = head_tree();
    for (const auto& path : changed_files()) {
      auto old_it = base.find(path);
      auto new_it = files_.find(path);
      out += "diff --git a/" + path + " b/" + path + "\n";
      out += old_it == base.end() ? "--- /dev/null\n" : "--- a/" + path + "\n";
      out += new_it == files_.end() ? "+++ /dev/null\n" : "+++ b/" + path + "\n";
      out += "@@ @@\n";
      if (old_it != base.end()) out += prefixed(old_it->second, '-');
      if (new_it != files_.end()) out += prefixed(new_it->second, '+');
    }
    return out;
  }

  std::string commit_all(const std::string& message) override {
    if (!fail_commit_.empty()) {
      std::string why = std::exchange(fail_commit_, std::string());
      throw GitError(why);
    }
    Tree tree;
    for (const auto& [path, content] : files_) {
      if (!ignored(path)) tree[path] = content;
    }
    head_ = make_commit(head_, message, tree);
    branches_[branch_] = head_;
    return head_;
  }

  void discard_changes() override {
    ++discards_;
    files_ = head_tree();
  }

  std::string current_branch() override { return branch_; }

  void restore(const std::string& branch, const std::string& commit) override {
    branch_ = branch;
    head_ = commit;
    branches_[branch_] = head_;
    files_ = head_tree();
  }

  std::vector<CommitInfo> commits(const std::string& range) override {
    auto dots = range.find("..");
    std::string from = dots == std::string::npos ? "" : range.substr(0, dots);
    std::string to = dots == std::string::npos ? range : range.substr(dots + 2);
    auto stop = from.empty() ? std::optional<std::string>("") : resolve(from);
    auto sha = resolve(to.empty() ? "HEAD" : to);
    if (!stop || !sha) throw GitError("fatal: bad revision '" + range + "'");
    std::vector<CommitInfo> out;
    for (std::string s = *sha; !s.empty() && s != *stop; s = commit(s).parent)
      out.insert(out.begin(), {s, commit(s).message});
    return out;
  }

  // Test helper: an agent that commits or switches branch behind the loop's back.
  void switch_branch(const std::string& name) {
    if (!branches_.count(name)) branches_[name] = head_;
    branch_ = name;
    head_ = branches_[name];
  }

  std::optional<std::string> show(const std::string& rev, const std::string& path) override {
    auto sha = resolve(rev);
    if (!sha) return std::nullopt;
    const Tree& tree = commit(*sha).tree;
    auto it = tree.find(path);
    if (it == tree.end()) return std::nullopt;
    return it->second;
  }

  std::vector<std::string> files_at(const std::string& rev, const std::string& path) override {
    auto sha = resolve(rev);
    if (!sha) throw GitError("fatal: Not a valid object name " + rev);
    const std::string prefix = path.empty() ? "" : path + "/";
    std::vector<std::string> out;
    for (const auto& entry : commit(*sha).tree)
      if (entry.first.rfind(prefix, 0) == 0) out.push_back(entry.first);
    return out;   // the tree is a std::map: sorted
  }

  std::string head() override { return head_; }

  std::vector<std::string> log_subjects(const std::string& range) override {
    auto dots = range.find("..");
    std::string from = dots == std::string::npos ? "" : range.substr(0, dots);
    std::string to = dots == std::string::npos ? range : range.substr(dots + 2);
    auto stop = from.empty() ? std::optional<std::string>("") : resolve(from);
    auto sha = resolve(to.empty() ? "HEAD" : to);
    if (!stop || !sha) throw GitError("fatal: bad revision '" + range + "'");
    std::vector<std::string> out;
    for (std::string s = *sha; !s.empty() && s != *stop; s = commit(s).parent) {
      out.insert(out.begin(), commit(s).message);
    }
    return out;
  }

 private:
  std::string make_commit(const std::string& parent, const std::string& message, Tree tree) {
    char sha[41];
    std::snprintf(sha, sizeof sha, "%040zx", commits_.size() + 0xc0ffee00);
    commits_.push_back({sha, parent, message, std::move(tree)});
    return sha;
  }
  size_t index_of(const std::string& sha) const {
    for (size_t i = 0; i < commits_.size(); ++i) {
      if (commits_[i].sha == sha) return i;
    }
    throw GitError("fatal: bad object " + sha);
  }
  const Tree& head_tree() const { return commits_[index_of(head_)].tree; }
  bool ignored(const std::string& path) const {
    for (const auto& prefix : ignored_) {
      if (path.compare(0, prefix.size(), prefix) == 0) return true;
    }
    return false;
  }
  static bool under(const std::string& path, const std::string& spec) {
    if (spec.empty() || spec == ".") return true;
    std::string dir = spec.back() == '/' ? spec : spec + "/";
    return path == spec || path.compare(0, dir.size(), dir) == 0;
  }
  static std::string prefixed(const std::string& text, char sign) {
    std::string out;
    size_t begin = 0;
    while (begin < text.size()) {
      size_t end = text.find('\n', begin);
      if (end == std::string::npos) end = text.size();
      out += sign + text.substr(begin, end - begin) + "\n";
      begin = end + 1;
    }
    return out;
  }

  Tree files_;
  std::set<std::string> ignored_;
  std::vector<Commit> commits_;
  std::map<std::string, std::string> branches_;
  std::string head_;
  std::string branch_;
  std::filesystem::path toplevel_ = "/fake/repo";
  std::vector<WorktreeCall> added_;
  std::vector<std::filesystem::path> removed_;
  int discards_ = 0;
  std::string fail_commit_;
};

}  // namespace ar
