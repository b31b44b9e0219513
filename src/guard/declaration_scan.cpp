#include "declaration_scan.h"

#include <set>

#include "declaration_facts.h"
#include "guard_rules.h"

namespace ar::guard_detail {
namespace {

enum class Scope { Namespace, Class, Block };
enum class Brace { Namespace, Class, Enum, Function, Initializer };

class Walker {
 public:
  Walker(const std::vector<Token>& tokens, const std::vector<std::string>& names)
      : names_(names), classifier_(types_) {
    for (const auto& t : tokens) t_.push_back(&t);
    collect_type_names();
  }

  std::vector<GuardFinding> run() {
    size_t i = 0;
    while (i < t_.size()) {
      size_t next = walk_declarations(i, Scope::Namespace);
      i = next > i ? next : i + 1;  // a stray `}` at the top
    }
    find_casts_of_const_statics();
    return std::move(findings_);
  }

 private:
  // Names declared as types in the editable code (struct X, using X = ...,
  // template <typename X>), for telling `f(X)` from `v(x)`.
  void collect_type_names() {
    for (size_t i = 0; i + 1 < t_.size(); ++i) {
      const Token& k = *t_[i];
      if ((k.is("struct") || k.is("class") || k.is("union") || k.is("enum") || k.is("typename")) &&
          t_[i + 1]->is_ident())
        types_.insert(t_[i + 1]->text);
      if (k.is("using") && i + 2 < t_.size() && t_[i + 1]->is_ident() && t_[i + 2]->is("="))
        types_.insert(t_[i + 1]->text);
      if (k.is("typedef")) {
        for (size_t j = i + 1; j < t_.size() && !t_[j]->is(";"); ++j)
          if (t_[j]->is_ident() && j + 1 < t_.size() && (t_[j + 1]->is(";") || t_[j + 1]->is("[")))
            types_.insert(t_[j]->text);
      }
    }
  }

  size_t skip_braces(size_t i) {  // i at `{`; index after the matching `}`
    int depth = 0;
    for (; i < t_.size(); ++i) {
      if (t_[i]->is("{")) ++depth;
      else if (t_[i]->is("}") && --depth == 0) return i + 1;
    }
    return t_.size();
  }

  static Brace brace_kind(const TokenList& g) {
    size_t h = skip_leading(g, 0);
    while (h < g.size() && (g[h]->is("inline") || g[h]->is("export"))) ++h;
    if (h < g.size() && g[h]->is("namespace")) return Brace::Namespace;
    if (g.size() == 2 && g[0]->is("extern") && g[1]->kind == TokenKind::String) return Brace::Namespace;
    bool has_paren = false, class_key = false, enum_key = false;
    for (size_t i = h; i < g.size(); ++i) {
      const Token& k = *g[i];
      if (k.is_ident() && is_paren_word(k.text) && i + 1 < g.size() && g[i + 1]->is("(")) {
        i = match_close(g, i + 1);
        continue;
      }
      if (size_t j = skip_double_bracket(g, i, nullptr); j != i) {
        i = j - 1;
        continue;
      }
      if (k.is("=") && !(i > 0 && g[i - 1]->is("operator"))) return Brace::Initializer;
      if (k.is("(") || k.is("[")) {
        if (k.is("(")) has_paren = true;
        i = match_close(g, i);
        continue;
      }
      if (!has_paren && k.is("enum")) enum_key = true;
      if (!has_paren && !enum_key && (k.is("struct") || k.is("class") || k.is("union"))) class_key = true;
    }
    if (enum_key) return Brace::Enum;
    if (class_key) return Brace::Class;
    if (has_paren) return Brace::Function;
    return Brace::Initializer;
  }

  // Declarations of a namespace or class body, from i to its closing `}`.
  size_t walk_declarations(size_t i, Scope scope) {
    const size_t n = t_.size();
    while (i < n) {
      if (t_[i]->is("}")) return i + 1;
      if (t_[i]->is(";")) {
        ++i;
        continue;
      }
      TokenList g;
      int depth = 0;
      bool complete = false;  // the declaration ended (or was a definition with a body)
      while (i < n && !complete) {
        const Token& k = *t_[i];
        if (depth == 0 && k.is(";")) {
          check_declaration(g, scope);
          ++i;
          complete = true;
        } else if (depth == 0 && k.is("}")) {
          if (!g.empty()) check_declaration(g, scope);
          complete = true;  // leave the `}` for the caller
        } else if (k.is("{")) {
          Brace kind = depth == 0 ? brace_kind(g) : Brace::Initializer;
          if (kind == Brace::Namespace) {
            i = walk_declarations(i + 1, Scope::Namespace);
            complete = true;
          } else if (kind == Brace::Class) {
            i = walk_declarations(i + 1, Scope::Class);
            g.push_back(body_token());
          } else if (kind == Brace::Enum) {
            i = skip_braces(i);
            g.push_back(body_token());
          } else if (kind == Brace::Function) {
            i = walk_block(i + 1);
            complete = true;  // a function definition
          } else {
            i = walk_block(i + 1);
            g.push_back(body_token());
          }
        } else if (scope == Scope::Class && depth == 0 && g.empty() && k.is_ident() &&
                   (k.text == "public" || k.text == "private" || k.text == "protected") && i + 1 < n &&
                   t_[i + 1]->is(":")) {
          i += 2;
        } else {
          if (k.is("(") || k.is("[")) ++depth;
          if ((k.is(")") || k.is("]")) && depth > 0) --depth;
          g.push_back(&k);
          ++i;
        }
      }
      if (!complete && !g.empty()) check_declaration(g, scope);
    }
    return n;
  }

  // A function body or an initialiser: only `static`/`extern` declarations
  // matter here; nested braces are blocks too (lambdas, local classes).
  size_t walk_block(size_t i) {
    const size_t n = t_.size();
    size_t statement = i;
    while (i < n) {
      const Token& k = *t_[i];
      if (k.is("}")) return i + 1;
      if (k.is("{")) {
        i = walk_block(i + 1);
        statement = i;
        continue;
      }
      if (k.is(";")) {
        statement = i + 1;
      } else if (k.is("static") || k.is("extern")) {
        size_t start = statement;
        int depth = 0;
        for (size_t j = statement; j < i; ++j) {  // after labels: `case 1:`, `public:`
          if (t_[j]->is("(")) ++depth;
          if (t_[j]->is(")")) --depth;
          if (depth == 0 && t_[j]->is(":")) start = j + 1;
        }
        if (reported_.insert(start).second) check_local(gather_statement(start));
      }
      ++i;
    }
    return n;
  }

  // Tokens of the statement starting at `from`, braces collapsed, up to `;` or a
  // function body.
  TokenList gather_statement(size_t from) {
    TokenList g;
    int depth = 0;
    bool has_paren = false, has_eq = false;
    for (size_t j = from; j < t_.size();) {
      const Token& k = *t_[j];
      if (depth == 0 && (k.is(";") || k.is("}"))) break;
      if (k.is("{")) {
        if (depth == 0 && has_paren && !has_eq) break;  // a (static member) function's body
        j = skip_braces(j);
        g.push_back(body_token());
        continue;
      }
      if (k.is("(") || k.is("[")) {
        has_paren = has_paren || (depth == 0 && k.is("("));
        ++depth;
      }
      if ((k.is(")") || k.is("]")) && depth > 0) --depth;
      if (depth == 0 && k.is("=")) has_eq = true;
      g.push_back(&k);
      ++j;
    }
    return g;
  }

  void check_declaration(const TokenList& g, Scope scope) {
    if (g.empty()) return;
    size_t h = skip_leading(g, 0);
    if (scope == Scope::Namespace && h < g.size() &&
        (g[h]->is("asm") || g[h]->is("__asm__") || g[h]->is("__asm"))) {
      report(kRuleConstructor, g, h, "asm at namespace scope");
      return;
    }
    DeclarationFacts f = classifier_.classify(g);
    if (scope == Scope::Class) {
      if (f.has_mutable) {
        report(kRuleStaticCache, g, f.name, "");
        return;
      }
      if (!f.has_static) return;
    }
    check_facts(g, f);
  }

  void check_local(const TokenList& g) {
    DeclarationFacts f = classifier_.classify(g);
    if (f.has_static || f.has_extern) check_facts(g, f);
  }

  void check_facts(const TokenList& g, const DeclarationFacts& f) {
    // thread_local is caught token by token; do not report it twice.
    if (!f.variable || f.exempt || f.has_thread_local) return;
    if (f.immutable && !f.allocates) {
      const_statics_.insert(g[f.name]->text);
      return;
    }
    if (!f.immutable && is_stateless_lambda(g, f.initialiser)) return;
    report(kRuleStaticCache, g, f.name, "");
  }

  // const is only a promise: `const_cast<float*>(kTable)[i] = x` or
  // `((float*)kTable)[i] = x` turns a const global back into a cache.
  void find_casts_of_const_statics() {
    const size_t n = t_.size();
    for (size_t i = 0; i < n; ++i) {
      const Token& k = *t_[i];
      if (k.is("const_cast")) {
        size_t j = i + 1;
        if (j < n && t_[j]->is("<")) j = skip_angles(t_, j);
        if (j >= n || !t_[j]->is("(")) continue;
        size_t close = match_close(t_, j);
        for (size_t m = j + 1; m < close; ++m)
          if (t_[m]->is_ident() && const_statics_.count(t_[m]->text)) {
            report_cast(*t_[m], "const_cast of " + t_[m]->text);
            break;
          }
      } else if (k.is(")") && i + 1 < n) {
        size_t m = i + 1;
        while (m < n && t_[m]->is("&")) ++m;
        if (m >= n || !t_[m]->is_ident() || !const_statics_.count(t_[m]->text)) continue;
        size_t open = match_open(i);
        if (open == kNoIndex || !looks_like_cast(open, i)) continue;
        report_cast(*t_[m], "cast of const " + t_[m]->text);
      }
    }
  }

  size_t match_open(size_t close) const {
    int depth = 0;
    for (size_t j = close + 1; j-- > 0;) {
      if (t_[j]->is(")")) ++depth;
      else if (t_[j]->is("(") && --depth == 0) return j;
    }
    return kNoIndex;
  }

  // `(T*)x`, `(T&)x`: a type then `*` or `&` in the parentheses, and the
  // parentheses are not a condition or a call.
  bool looks_like_cast(size_t open, size_t close) const {
    if (open > 0) {
      const Token& before = *t_[open - 1];
      if (before.is_ident() && !before.is("return")) return false;
      if (before.is(")") || before.is("]")) return false;
    }
    if (open + 1 >= close || !t_[open + 1]->is_ident()) return false;
    for (size_t j = open + 1; j < close; ++j)
      if (t_[j]->is("*") || t_[j]->is("&")) return true;
    return false;
  }

  void report_cast(const Token& at, const std::string& excerpt) {
    std::string where = at.source < static_cast<int>(names_.size()) ? names_[at.source] : "?";
    findings_.push_back({kRuleStaticCache, where + ":" + std::to_string(at.line), excerpt});
  }

  void report(const char* rule, const TokenList& g, size_t at, const std::string& excerpt) {
    size_t anchor = at == kNoIndex ? 0 : at;
    while (anchor < g.size() && g[anchor]->kind == TokenKind::Body) ++anchor;
    if (anchor >= g.size()) anchor = 0;
    const Token& t = *g[anchor];
    std::string text = excerpt;
    if (text.empty()) {
      size_t end = at == kNoIndex ? std::min<size_t>(g.size(), 8) : at + 1;
      if (end < g.size() && g[end]->is("[")) end = match_close(g, end) + 1;
      for (size_t j = 0; j < end && j < g.size(); ++j) {
        std::string s = g[j]->kind == TokenKind::String ? "\"" + g[j]->text + "\"" : g[j]->text;
        bool glue = !text.empty() && (s == "::" || s == "[" || s == "]" || s == "," || s == ">" || s == "(" ||
                                      s == ")" || text.back() == ':' || text.back() == '[' || text.back() == '<' ||
                                      text.back() == '(' || s == "<");
        if (!text.empty() && !glue) text += ' ';
        text += s;
      }
      if (text.size() > 60) text = text.substr(0, 57) + "...";
    }
    std::string where = t.source < static_cast<int>(names_.size()) ? names_[t.source] : "?";
    findings_.push_back({rule, where + ":" + std::to_string(t.line), text});
  }

  TokenList t_;
  const std::vector<std::string>& names_;
  std::set<std::string> types_;
  DeclarationClassifier classifier_;
  std::set<size_t> reported_;
  std::set<std::string> const_statics_;  // names of const variables with static storage
  std::vector<GuardFinding> findings_;
};

}  // namespace

std::vector<GuardFinding> scan_declarations(const std::vector<Token>& tokens,
                                            const std::vector<std::string>& display_names) {
  return Walker(tokens, display_names).run();
}

}  // namespace ar::guard_detail
