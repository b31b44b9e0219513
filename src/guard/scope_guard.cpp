// check_scope: the agent may change its editable files and the tunables file,
// nothing else (SPEC §3: everything else in the repo is protected). Paths are
// compared after lexical normalisation, so `kernels/x/../x/manifest.json` is the
// manifest and `kernels/x/../../src/harness/...` is the harness.
#include <map>
#include <optional>

#include "autoresearch/guard/guard.h"
#include "cpp_lexer.h"
#include "guard_rules.h"

namespace ar {
namespace {

namespace fs = std::filesystem;

// Repo-relative, '/'-separated, without `.`/`..`/empty parts; nullopt (and why)
// when the path is absolute or climbs out of the repository.
std::optional<std::string> normalise(std::string path, std::string* why) {
  // git quotes unusual names C-style ("kernels/x/a\tb.cu") unless core.quotePath is off.
  if (path.size() >= 2 && path.front() == '"' && path.back() == '"')
    path = guard_detail::decode_escapes(path.substr(1, path.size() - 2));
  if (path.empty()) {
    *why = "empty path";
    return std::nullopt;
  }
  if (path.front() == '/') {
    *why = "absolute path";
    return std::nullopt;
  }
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    std::string part = path.substr(start, slash - start);
    start = slash + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (parts.empty()) {
        *why = "escapes the repository";
        return std::nullopt;
      }
      parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  if (parts.empty()) {
    *why = "names the repository root";
    return std::nullopt;
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "/") + p;
  return out;
}

// `git status` writes a rename as "old -> new": both sides must be allowed.
std::vector<std::string> sides(const std::string& changed) {
  size_t arrow = changed.find(" -> ");
  if (arrow == std::string::npos) return {changed};
  return {changed.substr(0, arrow), changed.substr(arrow + 4)};
}

}  // namespace

GuardResult check_scope(const Manifest& m, const std::string& package_prefix,
                        const std::vector<std::string>& changed_files) {
  // normalised repo-relative path -> package-relative path
  std::map<std::string, std::string> allowed;
  std::vector<std::string> editable = m.editable;
  if (!m.tunables_file.empty()) editable.push_back(m.tunables_file);
  for (const auto& e : editable) {
    std::string why;
    std::string full = package_prefix.empty() ? e : package_prefix + "/" + e;
    if (auto n = normalise(full, &why)) allowed.emplace(*n, e);
  }

  GuardResult r;
  for (const auto& changed : changed_files) {
    for (const auto& path : sides(changed)) {
      std::string why;
      auto n = normalise(path, &why);
      if (!n) {
        r.findings.push_back({guard_detail::kRuleScope, path, why});
        continue;
      }
      auto it = allowed.find(*n);
      if (it == allowed.end()) {
        r.findings.push_back({guard_detail::kRuleScope, path, *n == path ? "" : "resolves to " + *n});
        continue;
      }
      // An editable file turned into a symlink would build whatever it points at
      // (the reference, a file outside the repo) under the editable name.
      std::error_code ec;
      if (!m.dir.empty() && fs::is_symlink(m.dir / it->second, ec))
        r.findings.push_back({guard_detail::kRuleScope, path, "now a symbolic link"});
    }
  }
  r.pass = r.findings.empty();
  return r;
}

}  // namespace ar
