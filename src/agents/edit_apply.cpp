// Applying parsed edit blocks to the current files, in memory, and the feedback
// the model gets when something did not apply.
#include <algorithm>
#include <cctype>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "autoresearch/agents/edit_blocks.h"
#include "edit_text.h"

namespace ar {
namespace {

using detail::clip;
using detail::trim;
using detail::trim_right;

// A file as lines plus each line's own ending, so that untouched lines keep
// theirs (a CRLF file stays CRLF, a mixed one stays mixed).
struct FileLines {
  std::vector<std::string> text;
  std::vector<std::string> eol;   // "\n", "\r\n", or "" for a last line without a newline
  std::string style = "\n";       // the dominant ending, given to new lines
  bool final_newline = true;
};

FileLines split_file(const std::string& s) {
  FileLines f;
  size_t crlf = 0, lf = 0, start = 0;
  while (start < s.size()) {
    size_t nl = s.find('\n', start);
    if (nl == std::string::npos) {
      f.text.push_back(s.substr(start));
      f.eol.emplace_back();
      f.final_newline = false;
      break;
    }
    bool cr = nl > start && s[nl - 1] == '\r';
    f.text.push_back(s.substr(start, nl - start - (cr ? 1 : 0)));
    f.eol.emplace_back(cr ? "\r\n" : "\n");
    ++(cr ? crlf : lf);
    start = nl + 1;
  }
  if (crlf > lf) f.style = "\r\n";
  return f;
}

std::string join(const FileLines& f) {
  std::string out;
  for (size_t i = 0; i < f.text.size(); ++i) out += f.text[i] + f.eol[i];
  return out;
}

// A block's text as lines, whatever its endings.
std::vector<std::string> block_lines(const std::string& s) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < s.size()) {
    size_t nl = s.find('\n', start);
    size_t end = nl == std::string::npos ? s.size() : nl;
    std::string line = s.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

// Replaces lines [pos, pos + count) with `with`, in the file's style, keeping
// its final newline state.
void splice(FileLines& f, size_t pos, size_t count, const std::vector<std::string>& with) {
  f.text.erase(f.text.begin() + pos, f.text.begin() + pos + count);
  f.eol.erase(f.eol.begin() + pos, f.eol.begin() + pos + count);
  f.text.insert(f.text.begin() + pos, with.begin(), with.end());
  f.eol.insert(f.eol.begin() + pos, with.size(), f.style);
  if (f.text.empty()) return;
  if (!f.final_newline)
    f.eol.back().clear();
  else if (f.eol.back().empty())
    f.eol.back() = f.style;
}

bool all_blank(const std::vector<std::string>& lines) {
  return std::all_of(lines.begin(), lines.end(), [](const std::string& l) { return trim(l).empty(); });
}

// Starts of the places where `search` matches whole lines of `file`, at most
// cap. Lines become integers and the sequence is searched with Knuth-Morris-Pratt,
// so that an adversarial block (thousands of identical lines) stays linear.
std::vector<size_t> find_matches(const std::vector<std::string>& file, const std::vector<std::string>& search,
                                 bool loose, size_t cap) {
  std::vector<size_t> found;
  if (search.empty() || search.size() > file.size()) return found;
  std::unordered_map<std::string_view, int> ids;
  auto id = [&](const std::string& line) {
    std::string_view key = loose ? trim_right(line) : std::string_view(line);
    return ids.emplace(key, static_cast<int>(ids.size())).first->second;
  };
  std::vector<int> want;
  for (const auto& line : search) want.push_back(id(line));
  std::vector<size_t> fail(want.size(), 0);   // longest proper border of want[0..i]
  for (size_t i = 1, k = 0; i < want.size(); ++i) {
    while (k > 0 && want[i] != want[k]) k = fail[k - 1];
    if (want[i] == want[k]) ++k;
    fail[i] = k;
  }
  for (size_t i = 0, k = 0; i < file.size() && found.size() < cap; ++i) {
    int have = id(file[i]);
    while (k > 0 && have != want[k]) k = fail[k - 1];
    if (have == want[k]) ++k;
    if (k == want.size()) {
      found.push_back(i + 1 - want.size());
      k = fail[k - 1];
    }
  }
  return found;
}

// Whitespace-blind line fingerprint: the most similar window must be found even
// when the model got the indentation wrong.
struct LineSig {
  std::string squeezed;
  std::vector<uint32_t> bigrams;   // sorted
};

LineSig signature(std::string_view line) {
  LineSig sig;
  for (char c : line)
    if (!detail::is_space(c)) sig.squeezed += c;
  for (size_t i = 0; i + 1 < sig.squeezed.size(); ++i)
    sig.bigrams.push_back(static_cast<uint32_t>(static_cast<unsigned char>(sig.squeezed[i])) << 8 |
                          static_cast<unsigned char>(sig.squeezed[i + 1]));
  std::sort(sig.bigrams.begin(), sig.bigrams.end());
  return sig;
}

// Dice coefficient over character bigrams, 1 for lines equal but for whitespace.
double similarity(const LineSig& a, const LineSig& b) {
  if (a.squeezed == b.squeezed) return 1.0;
  if (a.bigrams.empty() || b.bigrams.empty()) return 0.0;
  size_t i = 0, j = 0, common = 0;
  while (i < a.bigrams.size() && j < b.bigrams.size()) {
    if (a.bigrams[i] == b.bigrams[j]) {
      ++common, ++i, ++j;
    } else if (a.bigrams[i] < b.bigrams[j]) {
      ++i;
    } else {
      ++j;
    }
  }
  return 2.0 * static_cast<double>(common) / static_cast<double>(a.bigrams.size() + b.bigrams.size());
}

constexpr size_t kCompareLines = 40;   // SEARCH lines scored per window: bounds the work on huge blocks
constexpr size_t kShownLines = 30;
constexpr size_t kShownLineBytes = 160;

// The window of the file most like the SEARCH lines, numbered, at most kShownLines.
std::string nearest_lines(const std::vector<std::string>& file, const std::vector<std::string>& search,
                          const std::string& path) {
  if (file.empty()) return fmt::format("{} is empty.", path);
  size_t n = std::min(search.size(), kCompareLines);
  std::vector<LineSig> want, have;
  for (size_t i = 0; i < n; ++i) want.push_back(signature(search[i]));
  for (const auto& line : file) have.push_back(signature(line));
  size_t last_start = file.size() > search.size() ? file.size() - search.size() : 0;
  double best = -1;
  size_t best_start = 0;
  for (size_t s = 0; s <= last_start; ++s) {
    double score = 0;
    for (size_t i = 0; i < n && s + i < file.size(); ++i) score += similarity(have[s + i], want[i]);
    if (score > best) best = score, best_start = s;
  }
  if (n == 0 || best / static_cast<double>(n) < 0.25)
    return fmt::format("No lines of {} ({} lines) resemble the SEARCH lines.", path, file.size());
  size_t end = std::min(file.size(), best_start + search.size());
  std::string out = fmt::format("The most similar lines of {} are {}-{}", path, best_start + 1, end);
  for (size_t i = 0; i < search.size() && best_start + i < file.size(); ++i) {
    if (file[best_start + i] != search[i]) {
      bool spacing = signature(file[best_start + i]).squeezed == signature(search[i]).squeezed;
      out += fmt::format("; SEARCH line {} is the first to differ, from line {}{}", i + 1, best_start + i + 1,
                         spacing ? ", in whitespace only" : "");
      break;
    }
  }
  out += ":\n";
  size_t from = best_start >= 2 ? best_start - 2 : 0;
  size_t to = std::min({file.size(), end + 2, from + kShownLines});
  for (size_t i = from; i < to; ++i) out += fmt::format("{:>6}| {}\n", i + 1, clip(file[i], kShownLineBytes));
  if (to < end + 2 && to < file.size()) out += fmt::format("     (... {} more lines)\n", std::min(file.size(), end + 2) - to);
  return out;
}

std::string list_lines(const std::vector<size_t>& starts) {
  std::string out;
  for (size_t s : starts) out += (out.empty() ? "" : ", ") + std::to_string(s + 1);
  return out;
}

std::vector<std::string> normalized_segments(std::string_view p, bool* escapes) {
  std::vector<std::string> segments;
  size_t start = 0;
  while (start <= p.size()) {
    size_t slash = p.find('/', start);
    size_t end = slash == std::string_view::npos ? p.size() : slash;
    std::string_view seg = p.substr(start, end - start);
    if (seg == "..") *escapes = true;
    if (!seg.empty() && seg != ".") segments.emplace_back(seg);
    start = end + 1;
  }
  return segments;
}

std::string joined(const std::vector<std::string>& segments) {
  std::string out;
  for (const auto& s : segments) out += (out.empty() ? "" : "/") + s;
  return out;
}

std::string normalized(std::string_view p) {
  bool escapes = false;
  return joined(normalized_segments(p, &escapes));
}

// One block against the working copy of its file; "" on success, else the reason.
std::string apply_one(const EditBlock& b, FileLines& f, bool exists, const std::string& path, int* nearest_budget) {
  std::vector<std::string> replace = block_lines(b.replace);
  if (b.whole_file) {
    splice(f, 0, f.text.size(), replace);
    return {};
  }
  std::vector<std::string> search = block_lines(b.search);
  if (all_blank(search)) {
    if (exists && !all_blank(f.text))
      return fmt::format("an empty SEARCH, but {} is not empty: send the whole file as a fenced block after its path "
                         "instead, or SEARCH for the lines to change",
                         path);
    splice(f, 0, f.text.size(), replace);
    return {};
  }
  if (!exists)
    return fmt::format("{} does not exist: send the whole file as a fenced block after its path instead", path);
  constexpr size_t kListed = 10;
  for (bool loose : {false, true}) {
    std::vector<size_t> at = find_matches(f.text, search, loose, kListed + 1);
    if (at.size() == 1) {
      splice(f, at[0], search.size(), replace);
      return {};
    }
    if (at.size() > 1)
      return fmt::format("the SEARCH lines match {}{} places in {}{} (starting at lines {}{}): include more of the "
                         "surrounding lines so that they match exactly one",
                         at.size() > kListed ? "more than " : "", std::min(at.size(), kListed), path,
                         loose ? " (ignoring trailing whitespace)" : "",
                         list_lines({at.begin(), at.begin() + static_cast<long>(std::min(at.size(), kListed))}),
                         at.size() > kListed ? ", ..." : "");
  }
  std::string reason = fmt::format(
      "the SEARCH lines match nothing in {}, not even ignoring trailing whitespace: copy them exactly from the current "
      "file",
      path);
  if (!all_blank(replace) && !find_matches(f.text, replace, true, 1).empty())
    reason += fmt::format("; its REPLACE lines are already in {}: was this edit applied already?", path);
  if (*nearest_budget > 0) {
    --*nearest_budget;
    reason += ".\n" + nearest_lines(f.text, search, path);
  }
  return reason;
}

}  // namespace

std::optional<std::string> resolve_edit_path(const std::string& written, const std::vector<std::string>& editable,
                                             const std::string& package_prefix, std::string* why) {
  auto refuse = [why](std::string reason) -> std::optional<std::string> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  std::string p = detail::strip_decorations(written);
  if (p.empty()) return refuse("an empty path");
  if (p[0] == '/' || p[0] == '~' || (p.size() > 1 && p[1] == ':' && std::isalpha(static_cast<unsigned char>(p[0]))))
    return refuse(fmt::format("{} is an absolute path: give it relative to the package", p));
  if (p.find('\\') != std::string::npos) return refuse(fmt::format("{}: use '/' between folders", p));
  bool escapes = false;
  std::string rel = joined(normalized_segments(p, &escapes));
  if (escapes) return refuse(fmt::format("{} climbs out with '..': give it relative to the package", p));
  std::string prefix = normalized(package_prefix);
  if (!prefix.empty() && rel.size() > prefix.size() && rel.compare(0, prefix.size() + 1, prefix + "/") == 0)
    rel = rel.substr(prefix.size() + 1);
  std::string names;
  for (const auto& e : editable) {
    if (normalized(e) == rel) return rel;
    names += (names.empty() ? "" : ", ") + e;
  }
  return refuse(fmt::format("{} is not editable; editable: {}", p, names.empty() ? "(none)" : names));
}

AppliedEdits apply_edit_blocks(const std::vector<EditBlock>& blocks,
                               const std::function<std::optional<std::string>(const std::string&)>& current,
                               const std::vector<std::string>& editable, const std::string& package_prefix,
                               const EditLimits& limits) {
  struct Working {
    std::optional<std::string> original;
    FileLines lines;
    int last_block = 0;
  };
  AppliedEdits out;
  std::map<std::string, Working> work;
  int nearest_budget = 8;   // the similarity scan is the costly part of a failure
  for (size_t i = 0; i < blocks.size(); ++i) {
    const EditBlock& b = blocks[i];
    int index = static_cast<int>(i);
    std::string why;
    std::optional<std::string> path = resolve_edit_path(b.path, editable, package_prefix, &why);
    if (!path) {
      out.failures.push_back({detail::strip_decorations(b.path), index, why});
      continue;
    }
    auto it = work.find(*path);
    if (it == work.end()) {
      Working w;
      w.original = current(*path);
      if (w.original) w.lines = split_file(*w.original);
      it = work.emplace(*path, std::move(w)).first;
    }
    Working& w = it->second;
    bool exists = w.original.has_value() || !w.lines.text.empty();
    FileLines attempt = w.lines;
    std::string reason = apply_one(b, attempt, exists, *path, &nearest_budget);
    if (!reason.empty()) {
      out.failures.push_back({*path, index, reason});
      continue;
    }
    w.lines = std::move(attempt);
    w.last_block = index;
  }
  for (const auto& [path, w] : work) {
    std::string content = join(w.lines);
    if (w.original && content == *w.original) continue;
    if (!w.original && w.lines.text.empty()) continue;   // nothing applied to a file that is not there
    if (content.size() > limits.max_file_bytes) {
      out.failures.push_back({path, w.last_block,
                              fmt::format("the new {} would be {} bytes, over the limit of {} bytes", path,
                                          content.size(), limits.max_file_bytes)});
      continue;
    }
    out.files[path] = std::move(content);
  }
  return out;
}

std::string describe_failures(const AppliedEdits& applied, const ParsedEdits& parsed, size_t max_chars) {
  if (applied.failures.empty() && parsed.problems.empty()) return {};
  std::vector<std::string> items;
  for (const auto& p : parsed.problems) items.push_back("- " + p + "\n");
  std::vector<EditFailure> failures = applied.failures;
  std::stable_sort(failures.begin(), failures.end(),
                   [](const EditFailure& a, const EditFailure& b) { return a.block_index < b.block_index; });
  for (const auto& f : failures) {
    int line = f.block_index >= 0 && static_cast<size_t>(f.block_index) < parsed.blocks.size()
                   ? parsed.blocks[static_cast<size_t>(f.block_index)].answer_line
                   : 0;
    std::string where = line > 0 ? fmt::format("block {} (answer line {})", f.block_index + 1, line)
                                 : fmt::format("block {}", f.block_index + 1);
    std::string reason = f.reason;
    if (!reason.empty() && reason.back() == '\n') reason.pop_back();
    items.push_back(fmt::format("- {}, {}: {}\n", where, f.path, reason));
  }
  const std::string head = "Nothing was applied. Fix the following, then send all of your edit blocks again, "
                           "against the files as they are now:\n";
  const std::string tail = "Each block: the file's path alone on a line, then <<<<<<< SEARCH, the exact current "
                           "lines, =======, the new lines, >>>>>>> REPLACE.\n";
  std::string out = head;
  size_t budget = max_chars > head.size() + tail.size() ? max_chars - head.size() - tail.size() : 0;
  constexpr size_t kMoreRoom = 48;   // for the "... and N more" line
  size_t shown = 0;
  for (; shown < items.size(); ++shown) {
    size_t reserve = shown + 1 < items.size() ? kMoreRoom : 0;
    if (items[shown].size() + reserve > budget) break;
    out += items[shown];
    budget -= items[shown].size();
  }
  if (shown < items.size() && budget > kMoreRoom + 64) {   // cut, rather than drop, the next item
    out += std::string(detail::utf8_prefix(items[shown], budget - kMoreRoom - 8)) + " [...]\n";
    ++shown;
  }
  if (shown < items.size()) out += fmt::format("- ... and {} more not shown\n", items.size() - shown);
  out += tail;
  return std::string(detail::utf8_prefix(out, max_chars));
}

}  // namespace ar
