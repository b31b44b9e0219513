#pragma once
// What one declaration declares, from its tokens alone: a variable or a
// function, const all the way down or not, in which memory (CUDA's __shared__
// and __constant__ are not result caches), initialised by an allocation or not.
// Used by declaration_scan.cpp, which finds the declarations.
#include <set>
#include <string>
#include <vector>

#include "cpp_lexer.h"

namespace ar::guard_detail {

using TokenList = std::vector<const Token*>;
inline constexpr size_t kNoIndex = static_cast<size_t>(-1);

// Stands for a `{...}` that was skipped (a class body, an initialiser).
const Token* body_token();

// Token-list navigation shared with the scope walk. Each returns the index
// just past what it skipped.
size_t match_close(const TokenList& g, size_t open);                 // index of the matching ) ] }
size_t skip_angles(const TokenList& g, size_t at_less);               // template arguments
size_t skip_double_bracket(const TokenList& g, size_t j, std::vector<std::string>* words);  // [[...]]
size_t skip_qualified_name(const TokenList& g, size_t i);             // a::b<c>::d
size_t skip_leading(const TokenList& g, size_t i);                    // attributes, template<...>
// __attribute__, alignas, decltype, __launch_bounds__, ...: their (...) is not a declarator.
bool is_paren_word(const std::string& w);

struct DeclarationFacts {
  bool variable = false;
  bool function = false;
  bool immutable = false;   // constexpr, or const at every pointer level
  bool exempt = false;      // __shared__ / __constant__
  bool allocates = false;   // initialised by new, malloc, make_unique, ...
  bool has_static = false;
  bool has_extern = false;
  bool has_thread_local = false;
  bool has_mutable = false;
  size_t name = kNoIndex;         // the declarator-id
  size_t initialiser = kNoIndex;  // the `=`, `(` or `{` that starts it
};

// `auto f = [](...) {...};`: a closure without captures holds no state.
bool is_stateless_lambda(const TokenList& g, size_t initialiser);

class DeclarationClassifier {
 public:
  // `types`: names the editable code declares as types, for telling the
  // function declaration `f(T)` from the variable `v(n)`.
  explicit DeclarationClassifier(const std::set<std::string>& types) : types_(types) {}
  DeclarationFacts classify(const TokenList& g) const;

 private:
  bool is_type_name(const std::string& w) const;
  bool looks_like_parameters(const TokenList& g, size_t b, size_t e) const;
  const std::set<std::string>& types_;
};

}  // namespace ar::guard_detail
