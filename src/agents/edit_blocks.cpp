// Parsing the edit blocks of an answer. The rules are in edit_blocks.h; here
// they become one pass over the answer's lines.
#include "autoresearch/agents/edit_blocks.h"

#include <cctype>
#include <string_view>

#include <fmt/format.h>

#include "edit_text.h"

namespace ar {
namespace {

using detail::strip_decorations;
using detail::trim;

enum class Marker { none, head, divider, updated };

// A run of 5 to 9 of `c` at the start of t, or 0.
size_t marker_run(std::string_view t, char c) {
  size_t n = 0;
  while (n < t.size() && t[n] == c) ++n;
  return n >= 5 && n <= 9 ? n : 0;
}

bool keyword_follows(std::string_view rest, std::string_view word) {
  if (rest.empty() || (rest[0] != ' ' && rest[0] != '\t')) return false;
  return trim(rest) == word;
}

Marker marker_of(std::string_view line) {
  std::string_view t = trim(line);
  if (t.empty()) return Marker::none;
  if (size_t n = marker_run(t, '=')) return n == t.size() ? Marker::divider : Marker::none;
  if (size_t n = marker_run(t, '<')) return keyword_follows(t.substr(n), "SEARCH") ? Marker::head : Marker::none;
  if (size_t n = marker_run(t, '>')) return keyword_follows(t.substr(n), "REPLACE") ? Marker::updated : Marker::none;
  return Marker::none;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// A line meant as a marker but written wrong ("<<<< SEARCH", ">>>>>>> REPLACE:"):
// worth a precise complaint instead of silently treating it as text.
bool near_miss(std::string_view line, char c, std::string_view word) {
  std::string_view t = trim(line);
  size_t n = 0;
  while (n < t.size() && t[n] == c) ++n;
  if (n < 3) return false;
  std::string_view rest = trim(t.substr(n));
  if (rest.size() < word.size() || !iequals(rest.substr(0, word.size()), word)) return false;
  return marker_of(line) == Marker::none;
}

struct Fence {
  char ch = '`';
  size_t len = 0;
};

// An opening fence: 3+ backticks or tildes, then an optional info string. A bare
// fence is both an opener and a closer; which one is decided by the caller's state.
std::optional<Fence> fence_of(std::string_view line) {
  std::string_view t = trim(line);
  if (t.size() < 3 || (t[0] != '`' && t[0] != '~')) return std::nullopt;
  Fence f{t[0], 0};
  while (f.len < t.size() && t[f.len] == f.ch) ++f.len;
  if (f.len < 3) return std::nullopt;
  if (f.ch == '`' && t.substr(f.len).find('`') != std::string_view::npos) return std::nullopt;  // inline code
  return f;
}

bool closes(std::string_view line, const Fence& open) {
  std::string_view t = trim(line);
  if (t.size() < open.len) return false;
  for (char c : t)
    if (c != open.ch) return false;
  return true;
}

bool single_token(const std::string& s) {
  if (s.empty()) return false;
  bool alnum = false;
  for (unsigned char c : s) {
    if (c == ' ' || c == '\t') return false;
    alnum = alnum || std::isalnum(c) || c >= 0x80;
  }
  return alnum;
}

// Stricter than a SEARCH block's path: a fence after any word would otherwise
// read as a whole file ("Before:" then a quoted snippet).
bool looks_like_path(const std::string& s) {
  if (!single_token(s)) return false;
  bool separator = false;
  for (unsigned char c : s) {
    if (!(std::isalnum(c) || c == '_' || c == '.' || c == '/' || c == '-' || c == '+')) return false;
    separator = separator || c == '.' || c == '/';
  }
  return separator;
}

std::vector<std::string> answer_lines(std::string_view s) {
  if (s.substr(0, 3) == "\xEF\xBB\xBF") s.remove_prefix(3);  // a UTF-8 byte order mark
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < s.size()) {
    size_t nl = s.find('\n', start);
    size_t end = nl == std::string_view::npos ? s.size() : nl;
    std::string_view line = s.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.emplace_back(line);
    start = end + 1;
  }
  return lines;
}

class Parser {
 public:
  explicit Parser(std::vector<std::string> lines) : lines_(std::move(lines)) {}

  ParsedEdits run() {
    size_t i = 0;
    while (i < lines_.size()) i = step(i);
    if (out_.blocks.empty() && out_.problems.empty())
      out_.problems.push_back(
          "the answer holds no edit blocks: give the file's path alone on a line, then <<<<<<< SEARCH, the exact "
          "current lines, =======, the new lines, >>>>>>> REPLACE (or the path, then the whole new file in a fenced "
          "block)");
    return std::move(out_);
  }

 private:
  std::vector<std::string> lines_;
  ParsedEdits out_;
  std::optional<Fence> open_fence_;   // a fence that holds SEARCH blocks
  std::string last_path_;             // for a block that directly follows another
  std::string restart_path_;          // for a block whose marker sat inside a malformed one

  static int number(size_t i) { return static_cast<int>(i) + 1; }
  void problem(std::string text) { out_.problems.push_back(std::move(text)); }

  size_t step(size_t i) {
    const std::string& line = lines_[i];
    Marker m = marker_of(line);
    if (m == Marker::head) return block(i);
    if (m == Marker::updated) {
      problem(fmt::format("line {}: '>>>>>>> REPLACE' with no '<<<<<<< SEARCH' and '=======' before it", number(i)));
      return i + 1;
    }
    if (near_miss(line, '<', "SEARCH") || near_miss(line, '>', "REPLACE")) {
      problem(fmt::format("line {}: '{}' looks like a marker but is not one: write exactly '<<<<<<< SEARCH', "
                          "'=======' and '>>>>>>> REPLACE', each alone on its line",
                          number(i), detail::clip(trim(line), 80)));
      return i + 1;
    }
    if (open_fence_) {
      if (closes(line, *open_fence_)) open_fence_.reset();
      return i + 1;
    }
    if (auto fence = fence_of(line)) return fenced(i, *fence);
    return i + 1;  // prose (a lone '=======' included: a Markdown heading underline)
  }

  // A fence outside any block: one holding SEARCH blocks, a whole file, or prose.
  size_t fenced(size_t i, const Fence& fence) {
    size_t j = i + 1;
    bool holds_blocks = false;
    for (; j < lines_.size(); ++j) {
      if (marker_of(lines_[j]) == Marker::head) {
        holds_blocks = true;
        break;
      }
      if (closes(lines_[j], fence)) break;
    }
    if (holds_blocks) {
      open_fence_ = fence;
      return i + 1;
    }
    std::string path = path_before_fence(i);
    if (path.empty()) return j < lines_.size() ? j + 1 : lines_.size();  // a quoted snippet
    if (j >= lines_.size()) {
      problem(fmt::format("line {}: the whole file for {} is cut short: its fence is never closed (answer truncated?)",
                          number(i), path));
      return lines_.size();
    }
    EditBlock b;
    b.path = path;
    b.whole_file = true;
    b.answer_line = number(i);
    for (size_t k = i + 1; k < j; ++k) b.replace += lines_[k] + "\n";
    if (trim(b.replace).empty()) {
      problem(fmt::format("line {}: the whole file for {} is empty", number(i), path));
    } else {
      last_path_ = path;
      out_.blocks.push_back(std::move(b));
    }
    return j + 1;
  }

  // The path line right before a fence (one blank line allowed between), or "".
  std::string path_before_fence(size_t i) const {
    for (size_t back = 1; back <= 2 && back <= i; ++back) {
      const std::string& prev = lines_[i - back];
      if (trim(prev).empty()) continue;
      std::string path = strip_decorations(prev);
      return looks_like_path(path) ? path : std::string();
    }
    return {};
  }

  // The nearest line before a SEARCH marker that is not blank and not a fence;
  // "" when it is not a path (prose) or missing.
  std::string path_before_block(size_t h) const {
    size_t k = h;
    for (int looked = 0; k > 0 && looked < 4; ++looked) {
      const std::string& prev = lines_[k - 1];
      if (!trim(prev).empty() && !fence_of(prev)) {
        if (marker_of(prev) == Marker::updated) return last_path_;  // directly follows another block
        std::string path = strip_decorations(prev);
        return single_token(path) ? path : std::string();
      }
      --k;
    }
    return {};
  }

  // From the SEARCH marker at h; returns the line to continue at.
  size_t block(size_t h) {
    std::string path = restart_path_.empty() ? path_before_block(h) : restart_path_;
    restart_path_.clear();
    std::string what = path.empty() ? std::string("the block") : fmt::format("the block for {}", path);
    if (path.empty())
      problem(fmt::format("line {}: this SEARCH block has no path line before it: put the file's path alone on the "
                          "line before '<<<<<<< SEARCH' (or before its opening fence)",
                          number(h)));
    else
      last_path_ = path;

    EditBlock b;
    b.path = path;
    b.answer_line = number(h);
    size_t j = h + 1;
    for (; j < lines_.size(); ++j) {
      Marker m = marker_of(lines_[j]);
      if (m == Marker::divider) break;
      if (m == Marker::head) {
        problem(fmt::format("line {}: a second '<<<<<<< SEARCH' inside {} opened at line {}, before its '======='",
                            number(j), what, number(h)));
        restart_path_ = path;
        return j;
      }
      if (m == Marker::updated) {
        problem(fmt::format("line {}: '>>>>>>> REPLACE' before the '=======' of {} opened at line {}", number(j), what,
                            number(h)));
        return j + 1;
      }
      b.search += lines_[j] + "\n";
    }
    if (j >= lines_.size()) {
      problem(fmt::format("line {}: {} is cut short: no '=======' after its SEARCH lines (answer truncated?)",
                          number(h), what));
      return lines_.size();
    }
    size_t k = j + 1;
    for (; k < lines_.size(); ++k) {
      const std::string& line = lines_[k];
      Marker m = marker_of(line);
      if (m == Marker::updated) break;
      if (m == Marker::head) {
        problem(fmt::format("line {}: '<<<<<<< SEARCH' inside the REPLACE lines of {} opened at line {}: its "
                            "'>>>>>>> REPLACE' is missing",
                            number(k), what, number(h)));
        restart_path_ = path;
        return k;
      }
      if (m == Marker::divider || near_miss(line, '>', "REPLACE")) {
        problem(fmt::format(
            "line {}: '{}' inside the REPLACE lines of {} opened at line {}: the divider is the first '=======' "
            "after SEARCH, so marker lines cannot appear in a block's code; the block ends with exactly "
            "'>>>>>>> REPLACE'",
            number(k), detail::clip(trim(line), 40), what, number(h)));
        return skip_block_rest(k + 1);
      }
      b.replace += line + "\n";
    }
    if (k >= lines_.size()) {
      problem(fmt::format("line {}: {} is cut short: no '>>>>>>> REPLACE' (answer truncated?)", number(h), what));
      return lines_.size();
    }
    if (!path.empty()) out_.blocks.push_back(std::move(b));
    return k + 1;
  }

  // After a malformed block: resume after its end marker, or at the next block.
  size_t skip_block_rest(size_t k) const {
    for (; k < lines_.size(); ++k) {
      Marker m = marker_of(lines_[k]);
      if (m == Marker::updated) return k + 1;
      if (m == Marker::head) return k;
    }
    return k;
  }
};

}  // namespace

ParsedEdits parse_edit_blocks(const std::string& answer, const EditLimits& limits) {
  if (answer.size() > limits.max_answer_bytes) {
    ParsedEdits out;
    out.problems.push_back(fmt::format("the answer is {} bytes, over the limit of {} bytes: send only the blocks "
                                       "that change the code, not whole files you do not change",
                                       answer.size(), limits.max_answer_bytes));
    return out;
  }
  return Parser(answer_lines(answer)).run();
}

}  // namespace ar
