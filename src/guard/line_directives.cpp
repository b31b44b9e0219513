// Finds #line-style directives in an editable file's own text (see
// preprocessed_lines.h for why). Reads the text the way translation phases 1-3
// do, so `#\<newline>line`, `#/**/line` and `%:line` are all seen as `#line`.
#include <cctype>

#include "guard_rules.h"
#include "preprocessed_lines.h"

namespace ar::guard_detail {
namespace {

struct LogicalLine {
  int first_line = 1;
  std::string text;  // comments replaced by a space, splices removed
};

bool ends_with_raw_prefix(const std::string& text) {
  size_t b = text.size();
  while (b > 0 && (std::isalnum(static_cast<unsigned char>(text[b - 1])) || text[b - 1] == '_')) --b;
  std::string word = text.substr(b);
  return word == "R" || word == "LR" || word == "uR" || word == "UR" || word == "u8R";
}

std::vector<LogicalLine> logical_lines(const std::string& src) {
  std::vector<LogicalLine> out;
  LogicalLine cur;
  int line = 1;
  enum { Code, String, Char, Block, Raw } state = Code;
  std::string raw_close;
  size_t i = 0;
  auto newline = [&]() {
    out.push_back(cur);
    cur = LogicalLine{line + 1, ""};
  };
  while (i < src.size()) {
    char c = src[i];
    // Phase 2: a backslash before a newline joins the lines (not inside raw strings).
    if (c == '\\' && state != Raw) {
      size_t j = i + 1;
      if (j < src.size() && src[j] == '\r') ++j;
      if (j < src.size() && src[j] == '\n') {
        ++line;
        i = j + 1;
        continue;
      }
    }
    if (c == '\n') {
      if (state == Block || state == Raw) {
        ++line;  // the comment or raw string goes on; the logical line does too
        ++i;
        continue;
      }
      if (state == String || state == Char) state = Code;  // unterminated literal
      newline();
      ++line;
      ++i;
      continue;
    }
    switch (state) {
      case Code:
        if (c == '/' && i + 1 < src.size() && src[i + 1] == '/') {
          while (i < src.size() && src[i] != '\n') {
            if (src[i] == '\\' && i + 1 < src.size() && src[i + 1] == '\n') {
              ++line;  // a spliced // comment swallows the next line too
              ++i;
            }
            ++i;
          }
          cur.text += ' ';
          continue;
        }
        if (c == '/' && i + 1 < src.size() && src[i + 1] == '*') {
          state = Block;
          cur.text += ' ';
          i += 2;
          continue;
        }
        if (c == '"') {
          bool raw = ends_with_raw_prefix(cur.text);
          if (raw) {
            size_t paren = src.find('(', i + 1);
            if (paren != std::string::npos) {
              raw_close = ")" + src.substr(i + 1, paren - i - 1) + "\"";
              state = Raw;
              cur.text += "\"\"";
              i = paren + 1;
              continue;
            }
          }
          state = String;
        } else if (c == '\'') {
          state = Char;
        }
        cur.text += c;
        ++i;
        break;
      case String:
      case Char:
        if (c == '\\' && i + 1 < src.size()) {
          cur.text += src.substr(i, 2);
          i += 2;
          continue;
        }
        if ((state == String && c == '"') || (state == Char && c == '\'')) state = Code;
        cur.text += c;
        ++i;
        break;
      case Block:
        if (c == '*' && i + 1 < src.size() && src[i + 1] == '/') {
          state = Code;
          i += 2;
        } else {
          ++i;
        }
        break;
      case Raw:
        if (src.compare(i, raw_close.size(), raw_close) == 0) {
          state = Code;
          i += raw_close.size();
        } else {
          ++i;
        }
        break;
    }
  }
  out.push_back(cur);
  return out;
}

}  // namespace

std::vector<GuardFinding> find_line_directives(const std::string& raw_source, const std::string& display_name) {
  std::vector<GuardFinding> out;
  for (const auto& l : logical_lines(raw_source)) {
    const std::string& s = l.text;
    size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (s.compare(i, 1, "#") == 0) {
      i += 1;
    } else if (s.compare(i, 2, "%:") == 0) {
      i += 2;
    } else {
      continue;
    }
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    bool line_word = s.compare(i, 4, "line") == 0 &&
                     (i + 4 == s.size() || !(std::isalnum(static_cast<unsigned char>(s[i + 4])) || s[i + 4] == '_'));
    bool digit = i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]));
    if (line_word || digit) {
      std::string excerpt = s.substr(s.find_first_not_of(" \t"));
      if (excerpt.size() > 60) excerpt = excerpt.substr(0, 60) + "...";
      out.push_back({kRuleLineDirective, display_name + ":" + std::to_string(l.first_line), excerpt});
    }
  }
  return out;
}

}  // namespace ar::guard_detail
