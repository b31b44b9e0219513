#include "declaration_facts.h"

#include <algorithm>
#include <cctype>

namespace ar::guard_detail {
namespace {

const std::set<std::string> kBuiltinTypes = {
    "void",     "bool",     "char",     "short",    "int",      "long",   "float",  "double",
    "signed",   "unsigned", "wchar_t",  "char8_t",  "char16_t", "char32_t", "auto", "__int128",
    "_Float16", "__fp16",   "__bf16",   "half",     "__half",   "__half2", "__nv_bfloat16",
    "__nv_bfloat162", "dim3"};
// Specifiers that say nothing about mutability.
const std::set<std::string> kSpecifiers = {
    "inline",  "__inline__", "__inline", "volatile", "register", "constinit", "__restrict__", "__restrict",
    "restrict", "__host__",  "__device__", "__managed__", "typename", "export", "__grid_constant__"};
// Specifiers only a function can have.
const std::set<std::string> kFunctionOnly = {"__global__", "__forceinline__", "__noinline__", "virtual",
                                             "explicit",   "consteval"};
// Attribute words (inside __attribute__((...))) as nvcc -E prints CUDA's keywords.
const std::set<std::string> kExemptAttributes = {"shared", "__shared__", "constant", "__constant__"};
const std::set<std::string> kFunctionAttributes = {"global", "__global__", "always_inline", "noinline",
                                                   "launch_bounds", "__launch_bounds__"};
// Identifiers whose parenthesised argument is not part of the declarator.
const std::set<std::string> kParenWords = {
    "__attribute__", "__attribute", "__declspec", "alignas", "__align__", "__launch_bounds__",
    "__cluster_dims__", "__maxnreg__", "decltype", "__typeof__", "__typeof", "typeof", "noexcept",
    "throw", "requires", "__asm__", "asm", "__asm"};
const std::set<std::string> kAllocators = {"new",    "malloc",        "calloc",      "realloc",
                                           "aligned_alloc", "posix_memalign", "make_unique",
                                           "make_shared", "make_unique_for_overwrite", "mmap", "valloc",
                                           "memalign", "strdup"};

bool is_builtin_vector_type(const std::string& w) {
  // CUDA's float4, int2, uchar4, longlong2, ...
  static const char* kBases[] = {"char", "uchar", "short", "ushort", "int",    "uint",
                                 "long", "ulong", "longlong", "ulonglong", "float", "double"};
  if (w.empty() || !std::isdigit(static_cast<unsigned char>(w.back()))) return false;
  std::string base = w.substr(0, w.size() - 1);
  return std::any_of(std::begin(kBases), std::end(kBases), [&](const char* b) { return base == b; });
}

}  // namespace

const Token* body_token() {
  static const Token body = [] {
    Token t;
    t.kind = TokenKind::Body;
    t.text = "{...}";
    return t;
  }();
  return &body;
}

bool is_paren_word(const std::string& w) { return kParenWords.count(w) > 0; }

size_t match_close(const TokenList& g, size_t open) {
  const std::string& o = g[open]->text;
  const char* close = o == "(" ? ")" : o == "[" ? "]" : "}";
  int depth = 0;
  for (size_t j = open; j < g.size(); ++j) {
    if (g[j]->is(o.c_str())) ++depth;
    else if (g[j]->is(close) && --depth == 0) return j;
  }
  return g.size() - 1;
}

// j at `<`: index after the matching `>`.
size_t skip_angles(const TokenList& g, size_t j) {
  int depth = 0;
  for (; j < g.size(); ++j) {
    const Token& k = *g[j];
    if (k.is("<")) ++depth;
    else if (k.is(">")) depth -= 1;
    else if (k.is(">>")) depth -= 2;
    else if (k.is("(") || k.is("[")) j = match_close(g, j);
    else if (k.is(";") || k.is("{") || k.kind == TokenKind::Body) return j;
    if (depth <= 0) return j + 1;
  }
  return g.size();
}

// `[[ ... ]]` starting at j; returns the index after it, or j when there is none.
size_t skip_double_bracket(const TokenList& g, size_t j, std::vector<std::string>* words) {
  if (j + 1 >= g.size() || !g[j]->is("[") || !g[j + 1]->is("[")) return j;
  size_t close = match_close(g, j);
  for (size_t k = j; k < close; ++k)
    if (g[k]->is_ident() && words) words->push_back(g[k]->text);
  return close + 1;
}

// Name (qualified, with template arguments) starting at identifier i; index after it.
size_t skip_qualified_name(const TokenList& g, size_t i) {
  size_t j = i + 1;
  while (j < g.size()) {
    if (g[j]->is("<")) {
      j = skip_angles(g, j);
      continue;
    }
    if (g[j]->is("::") && j + 1 < g.size()) {
      ++j;
      if (g[j]->is("template") || g[j]->is("~")) ++j;
      if (j < g.size() && g[j]->is_ident()) {
        ++j;
        continue;
      }
    }
    break;
  }
  return j;
}

size_t skip_template_prefix(const TokenList& g, size_t i) {
  while (i < g.size() && g[i]->is("template")) {
    ++i;
    if (i < g.size() && g[i]->is("<")) i = skip_angles(g, i);
  }
  return i;
}

// Attributes and `template<...>` heads before a declaration.
size_t skip_leading(const TokenList& g, size_t i) {
  while (i < g.size()) {
    size_t j = skip_double_bracket(g, i, nullptr);
    if (j != i) {
      i = j;
      continue;
    }
    if (g[i]->is("template")) {
      i = skip_template_prefix(g, i);
      continue;
    }
    if (g[i]->is_ident() && kParenWords.count(g[i]->text) && !g[i]->is("asm") && !g[i]->is("__asm__") &&
        !g[i]->is("__asm") && i + 1 < g.size() && g[i + 1]->is("(")) {
      i = match_close(g, i + 1) + 1;
      continue;
    }
    break;
  }
  return i;
}

bool is_stateless_lambda(const TokenList& g, size_t init) {
  if (init == kNoIndex || !g[init]->is("=") || init + 2 >= g.size()) return false;
  return g[init + 1]->is("[") && g[init + 2]->is("]") && g.back()->kind == TokenKind::Body;
}

DeclarationFacts DeclarationClassifier::classify(const TokenList& g) const {
  DeclarationFacts f;
  const size_t n = g.size();
  bool type_known = false, const_spec = false, is_constexpr = false, function_only = false, saw_void = false;
  bool paren_declarator = false;
  std::vector<bool> pointer_const;  // one per `*`: is that pointer itself const?
  std::vector<std::string> attributes;
  size_t stop = n;
  size_t i = 0;
  while (i < n) {
    const Token& k = *g[i];
    if (k.kind == TokenKind::Body) {
      if (f.name != kNoIndex) {  // brace initialiser
        stop = i;
        break;
      }
      type_known = true;  // a class or enum body
      ++i;
      continue;
    }
    if (k.kind == TokenKind::String || k.kind == TokenKind::Number) {  // extern "C"
      ++i;
      continue;
    }
    if (size_t j = skip_double_bracket(g, i, &attributes); j != i) {
      i = j;
      continue;
    }
    if (k.is_ident() && kParenWords.count(k.text) && i + 1 < n && g[i + 1]->is("(")) {
      size_t close = match_close(g, i + 1);
      for (size_t j = i + 2; j < close; ++j)
        if (g[j]->is_ident()) attributes.push_back(g[j]->text);
      if (k.text == "decltype" || k.text.find("typeof") != std::string::npos) type_known = true;
      i = close + 1;
      continue;
    }
    if (k.is_ident()) {
      const std::string& w = k.text;
      if (w == "template") {
        i = skip_template_prefix(g, i);
        continue;
      }
      if (w == "typedef" || w == "using" || w == "static_assert" || w == "namespace" || w == "friend" ||
          w == "concept")
        return f;
      if (w == "operator") {
        f.function = true;
        return f;
      }
      if (w == "const") {
        if (pointer_const.empty()) const_spec = true;
        else pointer_const.back() = true;
      } else if (w == "constexpr") {
        is_constexpr = true;
      } else if (w == "static") {
        f.has_static = true;
      } else if (w == "extern") {
        f.has_extern = true;
      } else if (w == "thread_local" || w == "__thread" || w == "_Thread_local") {
        f.has_thread_local = true;
      } else if (w == "mutable") {
        f.has_mutable = true;
      } else if (w == "__shared__" || w == "__constant__") {
        f.exempt = true;
      } else if (kFunctionOnly.count(w)) {
        function_only = true;
      } else if (kSpecifiers.count(w)) {
      } else if (kBuiltinTypes.count(w)) {
        type_known = true;
        saw_void = saw_void || w == "void";
      } else if (w == "struct" || w == "class" || w == "union" || w == "enum") {
        ++i;
        if (w == "enum" && i < n && (g[i]->is("class") || g[i]->is("struct"))) ++i;
        i = skip_leading(g, i);
        if (i < n && g[i]->is_ident()) i = skip_qualified_name(g, i);
        type_known = true;
        continue;
      } else {
        size_t end = skip_qualified_name(g, i);
        if (!type_known) {
          type_known = true;  // the first name is the type
        } else if (f.name == kNoIndex) {
          f.name = end - 1;   // the declarator-id
        }
        i = end;
        continue;
      }
      ++i;
      continue;
    }
    if (k.is("*")) {
      pointer_const.push_back(false);
    } else if (k.is("(")) {
      size_t close = match_close(g, i);
      if (f.name != kNoIndex) {
        if (paren_declarator) {  // the parameters of a function pointer: (*fp)(int)
          i = close + 1;
          continue;
        }
        if (function_only || (saw_void && pointer_const.empty()) || looks_like_parameters(g, i + 1, close)) {
          f.function = true;
          return f;
        }
        stop = i;  // constructor-style initialiser
        break;
      }
      if (!type_known) {  // not a declaration we understand (a macro call, a constructor)
        f.function = true;
        return f;
      }
      // A parenthesised declarator: (*fp), (&r), (*rows)[4].
      for (size_t j = i + 1; j < close; ++j) {
        if (g[j]->is("*")) pointer_const.push_back(false);
        else if (g[j]->is("const") && !pointer_const.empty()) pointer_const.back() = true;
        else if (g[j]->is_ident() && f.name == kNoIndex && !kSpecifiers.count(g[j]->text)) f.name = j;
      }
      paren_declarator = true;
      i = close + 1;
      continue;
    } else if (k.is("[")) {
      i = match_close(g, i) + 1;
      continue;
    } else if (k.is("=") || k.is(",") || k.is(":") || k.is(";") || k.is("{")) {
      stop = i;
      break;
    }
    ++i;
  }
  for (const auto& a : attributes) {
    if (kExemptAttributes.count(a)) f.exempt = true;
    if (kFunctionAttributes.count(a)) function_only = true;
  }
  if (f.name == kNoIndex) return f;
  if (function_only) {
    f.function = true;
    return f;
  }
  f.variable = true;
  f.initialiser = stop < n ? stop : kNoIndex;
  f.immutable = is_constexpr ||
                (const_spec && std::all_of(pointer_const.begin(), pointer_const.end(), [](bool c) { return c; }));
  for (size_t j = stop; j < n; ++j) {
    const Token& k = *g[j];
    if (k.is_ident() && (kAllocators.count(k.text) || k.text.rfind("cudaMalloc", 0) == 0 ||
                         k.text.rfind("cuMemAlloc", 0) == 0))
      f.allocates = true;
  }
  return f;
}

bool DeclarationClassifier::is_type_name(const std::string& w) const {
  if (kBuiltinTypes.count(w) || types_.count(w) || is_builtin_vector_type(w)) return true;
  if (w.size() > 2 && w.compare(w.size() - 2, 2, "_t") == 0) return true;
  // CamelCase names are types by convention; ALL_CAPS and kName are constants.
  return std::isupper(static_cast<unsigned char>(w[0])) &&
         std::any_of(w.begin(), w.end(), [](char c) { return std::islower(static_cast<unsigned char>(c)); }) &&
         w.size() > 1 && !(w[0] == 'k' && std::isupper(static_cast<unsigned char>(w[1])));
}

// `(...)` after a declarator-id: a parameter list (function) or an initialiser
// (variable)? C++ itself calls it a function when it can; so do we, except that
// a bare name that is not known as a type reads as a value.
bool DeclarationClassifier::looks_like_parameters(const TokenList& g, size_t b, size_t e) const {
  if (b >= e) return true;
  const Token& first = *g[b];
  if (first.is("...")) return true;
  if (first.kind != TokenKind::Identifier) return false;  // literal, `*p`, `-1`, `(x)`
  const std::string& w = first.text;
  if (w == "this" || w == "nullptr" || w == "true" || w == "false" || w == "sizeof" || w == "new") return false;
  if (kBuiltinTypes.count(w) || kSpecifiers.count(w) || w == "const" || w == "struct" || w == "class" ||
      w == "enum" || w == "union" || w == "typename")
    return true;
  size_t after = skip_qualified_name(g, b);
  bool qualified = after > b + 1;
  if (after >= e || g[after]->is(",")) return qualified || is_type_name(w);
  const Token& next = *g[after];
  if (next.is_ident()) return true;  // `Params p`
  if (next.is("*") || next.is("&") || next.is("&&") || next.is("...") || next.is("[")) {
    // `T* p`, `T&`, `T[]` or an expression like `a * b`: the former is what
    // shows up in declarations.
    return after + 1 >= e || !(g[after + 1]->kind == TokenKind::Number);
  }
  if (next.is("(")) return is_type_name(w) || qualified;  // `T (*cb)(int)` vs `f(x)`
  return false;  // `.`, `->`, operators: an expression
}

}  // namespace ar::guard_detail
