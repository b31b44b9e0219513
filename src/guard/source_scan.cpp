// scan_preprocessed_source: keep the editable lines of the preprocessed
// candidate, then apply the rule table (token matchers and declaration rules).
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "autoresearch/guard/guard.h"
#include "declaration_scan.h"
#include "guard_rules.h"
#include "preprocessed_lines.h"
#include "token_rules.h"

namespace ar {
namespace {

namespace fs = std::filesystem;
using guard_detail::EditableFiles;

std::optional<std::string> read_if_present(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return std::nullopt;
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Orders findings by file and line, so the reason names the first offence in the source.
void sort_findings(std::vector<GuardFinding>& f, const std::vector<std::string>& names) {
  auto key = [&](const GuardFinding& g) {
    size_t colon = g.where.rfind(':');
    if (colon == std::string::npos) return std::pair<long, long>(-1, 0);
    auto it = std::find(names.begin(), names.end(), g.where.substr(0, colon));
    long line = std::atol(g.where.c_str() + colon + 1);
    return std::pair<long, long>(it == names.end() ? -1 : it - names.begin(), line);
  };
  std::stable_sort(f.begin(), f.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  // Two routes to one offence (a #line seen in the text and in the markers) are one finding.
  auto same = [](const GuardFinding& a, const GuardFinding& b) { return a.rule == b.rule && a.where == b.where; };
  f.erase(std::unique(f.begin(), f.end(), same), f.end());
}

}  // namespace

GuardResult scan_preprocessed_source(const std::string& preprocessed,
                                     const std::vector<std::filesystem::path>& editable_files,
                                     Backend backend) {
  EditableFiles files(editable_files);
  std::vector<std::string> names;
  for (size_t i = 0; i < files.size(); ++i) names.push_back(files.display_name(static_cast<int>(i)));

  guard_detail::SplitSource split = guard_detail::split_preprocessed(preprocessed, files);
  std::vector<GuardFinding> findings = split.findings;
  auto add = [&](std::vector<GuardFinding> more) {
    findings.insert(findings.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  };

  // An editable file turned into a symbolic link compiles whatever it points at
  // (the oracle, a file outside the repository) under the editable name, and
  // the line markers then attribute that file's text to the editable one. The
  // scope check looks for this too, but it is given the checkout's package
  // folder; these paths are the ones actually built.
  for (size_t i = 0; i < files.size(); ++i) {
    std::error_code ec;
    if (fs::is_symlink(files.path(static_cast<int>(i)), ec))
      findings.push_back({guard_detail::kRuleScope, names[i], "now a symbolic link"});
  }

  bool entered_any = false;
  for (size_t i = 0; i < files.size(); ++i) {
    if (!split.entered[i]) continue;
    entered_any = true;
    // Line markers can be forged from inside the file; its own text cannot.
    if (auto raw = read_if_present(files.path(static_cast<int>(i))))
      add(guard_detail::find_line_directives(*raw, names[i]));
  }
  if (!entered_any) {
    // Wrong paths, or -P output without markers: refuse rather than pass unscanned.
    findings.push_back({guard_detail::kRuleScanInput, "preprocessed source",
                        split.any_marker ? "no line marker names an editable file"
                                         : "no line markers; preprocess with -E, without -P"});
  }

  std::vector<guard_detail::Token> tokens = guard_detail::lex_lines(split.code);
  add(guard_detail::match_tokens(tokens, split.pragmas, names, backend));
  add(guard_detail::scan_declarations(tokens, names));
  sort_findings(findings, names);

  GuardResult result;
  result.findings = std::move(findings);
  result.pass = result.findings.empty();
  return result;
}

}  // namespace ar
