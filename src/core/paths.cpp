#include "autoresearch/core/paths.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <regex>

#include <fmt/format.h>

#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"
#include "autoresearch/version.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

// A folder holds the shipped files when the harness sources are there.
bool is_home(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "src" / "harness" / "PROTOCOL.md", ec) &&
         fs::is_regular_file(dir / "include" / "autoresearch" / "harness" / "problem.h", ec);
}

// <prefix>/bin/autoresearch -> <prefix>/share/autoresearch, found from the
// running executable (so a moved prefix still works), not from the install
// prefix given at build time.
std::optional<fs::path> installed_home() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return std::nullopt;
  fs::path dir = (exe.parent_path() / AUTORESEARCH_DATA_FROM_BIN).lexically_normal();
  if (is_home(dir)) return dir;
  return std::nullopt;
}

}  // namespace

fs::path find_home() {
  if (const char* h = std::getenv("AUTORESEARCH_HOME"); h && *h) {
    fs::path dir(h);
    if (!is_home(dir))
      throw usage_error(fmt::format("AUTORESEARCH_HOME={}: expected the folder autoresearch installs its files "
                                    "into (<prefix>/share/autoresearch) or a source checkout of autoresearch, "
                                    "holding src/harness/PROTOCOL.md and include/autoresearch/harness/problem.h",
                                    h));
    return fs::absolute(dir);
  }
  if (auto dir = installed_home()) return *dir;
#ifdef AUTORESEARCH_SOURCE_DIR
  if (is_home(AUTORESEARCH_SOURCE_DIR)) return fs::path(AUTORESEARCH_SOURCE_DIR);
#endif
  throw usage_error(
      "cannot find the files autoresearch ships (the harness sources, context, configs): not in "
      "AUTORESEARCH_HOME (unset), not in ../share/autoresearch beside the executable, and the source "
      "tree it was built from is gone; install it with `cmake --install build --prefix P` or set "
      "AUTORESEARCH_HOME");
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
