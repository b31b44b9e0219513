#include "cpp_lexer.h"

#include <array>
#include <cctype>
#include <cstring>

namespace ar::guard_detail {
namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

// Longest first, so ">>=" wins over ">>" and ">".
constexpr std::array<const char*, 24> kPunctuators = {
    "<=>", "<<=", ">>=", "->*", "...", "::", "->", "++", "--", "<<", ">>", "<=",
    ">=",  "==",  "!=",  "&&",  "||",  "+=", "-=", "*=", "/=", "%=", "&=", "|="};

void append_utf8(std::string& out, unsigned long cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Lexer {
 public:
  std::vector<Token> run(const std::vector<SourceLine>& lines) {
    for (const auto& l : lines) lex_line(l);
    return std::move(tokens_);
  }

 private:
  void lex_line(const SourceLine& l) {
    const std::string& s = l.text;
    size_t i = 0;
    while (i < s.size()) {
      if (in_block_comment_) {
        size_t end = s.find("*/", i);
        if (end == std::string::npos) return;
        in_block_comment_ = false;
        i = end + 2;
        continue;
      }
      if (in_raw_string_) {
        std::string close = ")" + raw_delimiter_ + "\"";
        size_t end = s.find(close, i);
        if (end == std::string::npos) {
          raw_token_.text += s.substr(i) + "\n";
          return;
        }
        raw_token_.text += s.substr(i, end - i);
        tokens_.push_back(raw_token_);
        in_raw_string_ = false;
        i = end + close.size();
        continue;
      }
      char c = s[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
      } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
        return;
      } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
        in_block_comment_ = true;
        i += 2;
      } else if (ident_start(c)) {
        size_t j = i;
        while (j < s.size() && ident_char(s[j])) ++j;
        std::string word = s.substr(i, j - i);
        if (j < s.size() && (s[j] == '"' || s[j] == '\'') && is_literal_prefix(word, s[j])) {
          i = literal(l, i, j, word.back() == 'R' && s[j] == '"');
        } else {
          push(l, TokenKind::Identifier, word, i, j);
          i = j;
        }
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
        size_t j = i + 1;
        while (j < s.size()) {
          char d = s[j];
          if ((d == '+' || d == '-') && std::strchr("eEpP", s[j - 1])) {
            ++j;
          } else if (ident_char(d) || d == '.' || d == '\'') {
            ++j;
          } else {
            break;
          }
        }
        push(l, TokenKind::Number, s.substr(i, j - i), i, j);
        i = j;
      } else if (c == '"' || c == '\'') {
        i = literal(l, i, i, false);
      } else {
        size_t len = 1;
        for (const char* p : kPunctuators) {
          size_t n = std::strlen(p);
          if (s.compare(i, n, p) == 0) {
            len = n;
            break;
          }
        }
        push(l, TokenKind::Punct, s.substr(i, len), i, i + len);
        i += len;
      }
    }
  }

  static bool is_literal_prefix(const std::string& w, char quote) {
    static const char* kPrefixes[] = {"L", "u", "U", "u8", "R", "LR", "uR", "UR", "u8R"};
    for (const char* p : kPrefixes) {
      if (w == p) return quote == '"' || w.back() != 'R';
    }
    return false;
  }

  // `start` is where the token begins (prefix included), `quote` the opening quote.
  size_t literal(const SourceLine& l, size_t start, size_t quote, bool raw) {
    const std::string& s = l.text;
    if (raw) {
      size_t paren = s.find('(', quote + 1);
      if (paren == std::string::npos) {  // malformed: treat the rest as the string
        push(l, TokenKind::String, s.substr(quote + 1), start, s.size());
        return s.size();
      }
      raw_delimiter_ = s.substr(quote + 1, paren - quote - 1);
      std::string close = ")" + raw_delimiter_ + "\"";
      size_t end = s.find(close, paren + 1);
      if (end == std::string::npos) {
        raw_token_ = make(l, TokenKind::String, s.substr(paren + 1) + "\n", start, s.size());
        in_raw_string_ = true;
        return s.size();
      }
      push(l, TokenKind::String, s.substr(paren + 1, end - paren - 1), start, end + close.size());
      return end + close.size();
    }
    char q = s[quote];
    size_t j = quote + 1;
    while (j < s.size() && s[j] != q) j += (s[j] == '\\' && j + 1 < s.size()) ? 2 : 1;
    std::string body = s.substr(quote + 1, std::min(j, s.size()) - quote - 1);
    size_t end = std::min(j + 1, s.size());
    push(l, q == '"' ? TokenKind::String : TokenKind::Char, decode_escapes(body), start, end);
    return end;
  }

  static Token make(const SourceLine& l, TokenKind kind, std::string text, size_t b, size_t e) {
    Token t;
    t.kind = kind;
    t.text = std::move(text);
    t.source = l.source;
    t.line = l.line;
    t.column = static_cast<int>(b);
    t.end_column = static_cast<int>(e);
    return t;
  }
  void push(const SourceLine& l, TokenKind kind, std::string text, size_t b, size_t e) {
    tokens_.push_back(make(l, kind, std::move(text), b, e));
  }

  std::vector<Token> tokens_;
  bool in_block_comment_ = false;
  bool in_raw_string_ = false;
  std::string raw_delimiter_;
  Token raw_token_;
};

}  // namespace

std::string decode_escapes(const std::string& body) {
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 == body.size()) {
      out += body[i];
      continue;
    }
    char e = body[++i];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case 'e': out += '\x1b'; break;
      case 'x': {
        unsigned long v = 0;
        while (i + 1 < body.size() && hex_value(body[i + 1]) >= 0) v = v * 16 + hex_value(body[++i]);
        append_utf8(out, v);
        break;
      }
      case 'u':
      case 'U': {
        unsigned long v = 0;
        int digits = e == 'u' ? 4 : 8;
        for (int k = 0; k < digits && i + 1 < body.size() && hex_value(body[i + 1]) >= 0; ++k)
          v = v * 16 + hex_value(body[++i]);
        append_utf8(out, v);
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          unsigned long v = e - '0';
          for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7'; ++k)
            v = v * 8 + (body[++i] - '0');
          append_utf8(out, v);
        } else {
          out += e;  // \\ \" \' \? and anything unknown
        }
    }
  }
  return out;
}

std::vector<Token> lex_lines(const std::vector<SourceLine>& lines) { return Lexer().run(lines); }

}  // namespace ar::guard_detail
