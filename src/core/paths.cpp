#include "autoresearch/core/paths.h"

#include <algorithm>
#include <cstdlib>
#include <regex>

#include <fmt/format.h>

#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"

namespace fs = std::filesystem;

namespace ar {

fs::path find_home() {
  if (const char* h = std::getenv("AUTORESEARCH_HOME"); h && *h) return fs::path(h);
#ifdef AUTORESEARCH_SOURCE_DIR
  return fs::path(AUTORESEARCH_SOURCE_DIR);
#else
  return fs::current_path();
#endif
}

fs::path Paths::default_lock_dir() {
  if (const char* d = std::getenv("AUTORESEARCH_LOCK_DIR"); d && *d) return fs::path(d);
  return fs::temp_directory_path() / "autoresearch-locks";
}

fs::path Paths::harness_cache() const {
  if (const char* c = std::getenv("AUTORESEARCH_CACHE_DIR"); c && *c) return fs::path(c) / "harness";
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "autoresearch" / "harness";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "autoresearch" / "harness";
  return state() / "harness";
}

fs::path find_repo(const fs::path& start) {
  fs::path p = fs::absolute(start);
  for (fs::path q = p; !q.empty(); q = q.parent_path()) {
    if (fs::exists(q / ".git")) return q;
    if (q == q.root_path()) break;
  }
  throw usage_error(fmt::format("{} is not inside a git checkout (autoresearch keeps its results "
                                "on a git branch; run `git init` first)", p.string()));
}

Paths discover_paths(const fs::path& start) {
  Paths p;
  p.home = find_home();
  p.repo = find_repo(start);
  return p;
}

std::vector<std::string> known_kernels(const Paths& p) {
  std::vector<std::string> out;
  for (const auto& root : {p.repo / "kernels", p.home / "kernels"}) {
    if (!fs::is_directory(root)) continue;
    for (const auto& e : fs::directory_iterator(root))
      if (fs::exists(e.path() / "manifest.json")) out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

fs::path resolve_manifest(const Paths& p, const std::string& kernel) {
  if (kernel.empty()) throw usage_error("--kernel is required (e.g. --kernel sparse_mla)");
  fs::path given(kernel);
  if (kernel.find('/') != std::string::npos || fs::exists(given / "manifest.json")) {
    if (fs::is_regular_file(given) && given.filename() == "manifest.json") return fs::absolute(given);
    if (fs::is_regular_file(given / "manifest.json")) return fs::absolute(given / "manifest.json");
  }
  for (const auto& root : {p.repo / "kernels", p.home / "kernels"})
    if (fs::is_regular_file(root / kernel / "manifest.json")) return root / kernel / "manifest.json";
  std::string list;
  for (const auto& k : known_kernels(p)) list += (list.empty() ? "" : ", ") + k;
  throw usage_error(fmt::format("unknown kernel '{}' (known: {})", kernel, list.empty() ? "none" : list));
}

void exclude_state_dir(const Paths& p) {
  fs::path git = p.repo / ".git";
  if (!fs::is_directory(git)) return;  // a worktree or submodule: its gitdir is elsewhere; skip
  fs::path exclude = git / "info" / "exclude";
  std::string text = fs::exists(exclude) ? read_file(exclude) : "";
  if (text.find("/.autoresearch/") != std::string::npos) return;
  fs::create_directories(exclude.parent_path());
  if (!text.empty() && text.back() != '\n') text += '\n';
  text += "# autoresearch: runs, worktrees and caches\n/.autoresearch/\n";
  write_file_atomic(exclude, text);
}

bool valid_tag(const std::string& tag) {
  static const std::regex re("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
  return std::regex_match(tag, re) && tag.find("..") == std::string::npos;
}

std::string make_run_id(const std::string& kernel, const std::string& tag) {
  if (!valid_tag(tag))
    throw usage_error(fmt::format("--tag: '{}' may only hold letters, digits, '.', '_' and '-'", tag));
  return kernel + "-" + tag;
}

}  // namespace ar
