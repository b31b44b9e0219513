#include "token_rules.h"

#include <cctype>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include "guard_rules.h"

namespace ar::guard_detail {
namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

bool contains(const std::vector<const char*>& words, const std::string& w) {
  for (const char* x : words)
    if (w == x) return true;
  return false;
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Namespace facts the Qualified matcher needs: aliases (`namespace s = std;`)
// and the namespaces opened with `using namespace`.
struct Namespaces {
  std::map<std::string, std::string> alias;  // alias -> last component of its target
  std::set<std::string> opened;

  explicit Namespaces(const std::vector<Token>& t) {
    for (size_t i = 0; i + 3 < t.size(); ++i) {
      if (t[i].is("namespace") && t[i + 1].is_ident() && t[i + 2].is("=")) {
        std::string last;
        for (size_t j = i + 3; j < t.size() && !t[j].is(";"); ++j)
          if (t[j].is_ident()) last = t[j].text;
        alias[t[i + 1].text] = last;
      }
      if (t[i].is("using") && t[i + 1].is("namespace")) {
        for (size_t j = i + 2; j < t.size() && !t[j].is(";"); ++j)
          if (t[j].is_ident()) opened.insert(resolve(t[j].text));
      }
    }
  }
  std::string resolve(const std::string& name) const {
    auto it = alias.find(name);
    return it == alias.end() ? name : it->second;
  }
};

// `word` at the start of an assembler statement (after a newline, `;` or `{`)
// and followed by a space: a directive, not an instruction suffix.
bool starts_statement(const std::string& s, const std::string& word) {
  for (size_t at = s.find(word); at != std::string::npos; at = s.find(word, at + 1)) {
    size_t b = at;
    for (bool more = true; more;) {  // skip blanks and linkage directives (.visible .global ...)
      more = false;
      while (b > 0 && (s[b - 1] == ' ' || s[b - 1] == '\t')) --b;
      for (const char* linkage : {".visible", ".extern", ".weak", ".common"}) {
        size_t n = std::strlen(linkage);
        if (b >= n && s.compare(b - n, n, linkage) == 0) {
          b -= n;
          more = true;
        }
      }
    }
    bool start = b == 0 || s[b - 1] == '\n' || s[b - 1] == ';' || s[b - 1] == '{';
    size_t e = at + word.size();
    if (start && e < s.size() && std::isspace(static_cast<unsigned char>(s[e]))) return true;
  }
  return false;
}

class TokenMatcher {
 public:
  TokenMatcher(const std::vector<Token>& t, const std::vector<std::string>& names, Backend backend)
      : t_(t), names_(names), backend_(backend), ns_(t) {}

  std::vector<GuardFinding> run(const std::vector<SourceLine>& pragmas) {
    for (size_t i = 0; i < t_.size(); ++i) {
      const Token& k = t_[i];
      if (k.is_ident()) {
        identifier(i);
        if (k.text == "__attribute__" || k.text == "__attribute") attribute(i + 1);
        if (k.text == "asm" || k.text == "__asm__" || k.text == "__asm") assembly(i);
      } else if (k.is("[") && i + 1 < t_.size() && t_[i + 1].is("[")) {
        attribute(i);
      } else if (k.is("<<")) {
        chevrons(i);
      }
    }
    for (const auto& p : pragmas) pragma(p);
    return std::move(findings_);
  }

 private:
  bool prev_is(size_t i, const char* s) const { return i > 0 && t_[i - 1].is(s); }
  bool next_is(size_t i, const char* s) const { return i + 1 < t_.size() && t_[i + 1].is(s); }

  // The namespace a name is qualified with: "" when bare, "::" when global.
  // Inline implementation namespaces (std::__1::, std::__cxx11::) are looked through.
  std::string qualifier(size_t i) const {
    while (prev_is(i, "::")) {
      if (i < 2 || !t_[i - 2].is_ident()) return "::";
      const std::string& q = t_[i - 2].text;
      if (q.rfind("__", 0) != 0 || !prev_is(i - 2, "::")) return ns_.resolve(q);
      i -= 2;
    }
    return "";
  }

  bool matches(const Matcher& m, size_t i) const {
    const Token& k = t_[i];
    const std::string& w = k.text;
    switch (m.match) {
      case Match::Word:
        return contains(m.words, w);
      case Match::Prefix:
        for (const char* p : m.words)
          if (starts_with(w, p)) return true;
        return false;
      case Match::Use:
        return contains(m.words, w) &&
               (next_is(i, "(") || prev_is(i, "&") || prev_is(i, "::") ||
                (prev_is(i, "=") && (next_is(i, ";") || next_is(i, ",") || next_is(i, ")"))));
      case Match::Qualified:
        for (const char* q : m.words) {
          std::string s(q);
          size_t sep = s.find("::");
          std::string ns = s.substr(0, sep), name = s.substr(sep + 2);
          if (w != name) continue;
          if (prev_is(i, "::") ? qualifier(i) == ns : ns_.opened.count(ns) > 0) return true;
        }
        return false;
      case Match::RuntimeCall:
        for (const char* p : m.words) {
          size_t n = std::string(p).size();
          if (starts_with(w, p) && w.size() > n && std::isupper(static_cast<unsigned char>(w[n])) && next_is(i, "("))
            return true;
        }
        return false;
      default:
        return false;
    }
  }

  void identifier(size_t i) {
    // A member (`cfg.clock`, `p->time`) is never the library function.
    if (prev_is(i, ".") || prev_is(i, "->") || prev_is(i, ".*") || prev_is(i, "->*")) return;
    for (const auto& m : matchers()) {
      if (!applies(m, backend_) || !matches(m, i)) continue;
      std::string q = qualifier(i);
      add(m.rule, t_[i], (q.empty() || q == "::" ? q : q + "::") + t_[i].text);
      return;
    }
  }

  // i at the `(` after __attribute__, or at the first `[` of `[[`.
  void attribute(size_t i) {
    if (i >= t_.size() || !(t_[i].is("(") || t_[i].is("["))) return;
    const std::string open = t_[i].text, close = open == "(" ? ")" : "]";
    int depth = 0;
    for (size_t j = i; j < t_.size(); ++j) {
      if (t_[j].is(open.c_str())) ++depth;
      else if (t_[j].is(close.c_str()) && --depth == 0) return;
      if (!t_[j].is_ident()) continue;
      for (const auto& m : matchers()) {
        if (m.match == Match::Attribute && applies(m, backend_) && contains(m.words, t_[j].text)) {
          add(m.rule, t_[j], open == "(" ? "__attribute__((" + t_[j].text + "))" : "[[" + t_[j].text + "]]");
          break;
        }
      }
    }
  }

  // asm [volatile|goto|inline] ( "..." "..." : ... ): the strings, adjacent ones
  // joined as the compiler joins them, so "%%global" "timer" is still seen.
  void assembly(size_t i) {
    size_t j = i + 1;
    while (j < t_.size() && t_[j].is_ident()) ++j;  // volatile, __volatile__, goto, inline
    if (j >= t_.size() || !t_[j].is("(")) return;
    int depth = 0;
    std::string text;
    const Token* first = nullptr;
    for (; j < t_.size(); ++j) {
      const Token& k = t_[j];
      if (k.kind == TokenKind::String) {
        if (!first) first = &k;
        text += k.text;
        continue;
      }
      if (first) {
        asm_string(*first, text);
        first = nullptr;
        text.clear();
      }
      if (k.is("(")) ++depth;
      else if (k.is(")") && --depth == 0) break;
    }
  }

  void asm_string(const Token& at, const std::string& s) {
    std::vector<std::string> registers, words;
    for (size_t p = 0; p < s.size();) {
      if (!is_word_char(s[p])) {
        ++p;
        continue;
      }
      size_t e = p;
      while (e < s.size() && is_word_char(s[e])) ++e;
      std::string w = s.substr(p, e - p);
      if (p > 0 && s[p - 1] == '%') registers.push_back(w);
      words.push_back(w);
      p = e;
    }
    std::string shown = s.size() > 60 ? s.substr(0, 57) + "..." : s;
    for (const auto& m : matchers()) {
      if (!applies(m, backend_)) continue;
      bool hit = false;
      if (m.match == Match::AsmRegister)
        for (const auto& r : registers) hit = hit || contains(m.words, r);
      if (m.match == Match::AsmWord)
        for (const auto& w : words) hit = hit || contains(m.words, w);
      if (m.match == Match::AsmText)
        for (const char* x : m.words) hit = hit || s.find(x) != std::string::npos;
      if (m.match == Match::AsmDirective)
        for (const char* x : m.words) hit = hit || starts_statement(s, x);
      if (hit) {
        add(m.rule, at, "asm(\"" + shown + "\")");
        return;
      }
    }
  }

  // `<<` then `<` with nothing between: a kernel launch, unless it is `operator<<<T>`.
  void chevrons(size_t i) {
    if (i + 1 >= t_.size() || !t_[i + 1].is("<") || prev_is(i, "operator")) return;
    if (t_[i + 1].line != t_[i].line || t_[i + 1].column != t_[i].end_column) return;
    for (const auto& m : matchers())
      if (m.match == Match::LaunchChevrons && applies(m, backend_)) add(m.rule, t_[i], "<<<...>>>");
  }

  void pragma(const SourceLine& p) {
    std::istringstream in(p.text);
    std::string word, normal;
    while (in >> word) normal += (normal.empty() ? "" : " ") + word;
    std::string first = normal.substr(0, normal.find(' '));
    for (const auto& m : matchers()) {
      if (m.match != Match::Pragma || !applies(m, backend_) || !contains(m.words, first)) continue;
      bool allowed = false;
      for (const char* e : m.except) {
        std::string ex(e);
        allowed = allowed || (starts_with(normal, e) && (normal.size() == ex.size() || normal[ex.size()] == ' '));
      }
      if (!allowed) {
        Token at;
        at.source = p.source;
        at.line = p.line;
        add(m.rule, at, "#pragma " + normal);
      }
    }
  }

  void add(const char* rule, const Token& at, const std::string& excerpt) {
    std::string where = (at.source < static_cast<int>(names_.size()) ? names_[at.source] : "?") + ":" +
                        std::to_string(at.line);
    // One finding per rule and line: `std::chrono::steady_clock::now()` is one timer.
    if (!seen_.insert(std::string(rule) + "@" + where).second) return;
    findings_.push_back({rule, where, excerpt});
  }

  const std::vector<Token>& t_;
  const std::vector<std::string>& names_;
  Backend backend_;
  Namespaces ns_;
  std::set<std::string> seen_;
  std::vector<GuardFinding> findings_;
};

}  // namespace

std::vector<GuardFinding> match_tokens(const std::vector<Token>& tokens, const std::vector<SourceLine>& pragmas,
                                       const std::vector<std::string>& display_names, Backend backend) {
  return TokenMatcher(tokens, display_names, backend).run(pragmas);
}

}  // namespace ar::guard_detail
