#pragma once
// A tiny arithmetic/logic language for manifest constraints between tunables
// ("BLOCK_M * BLOCK_K * 4 <= 65536 && THREADS % 32 == 0") and per-workload FLOP
// and byte formulas ("2*batch*heads*min(topk, context)*(576+512)").
// Numbers are doubles; comparisons and logic yield 1 or 0.
// Operators: + - * / % (fmod) ** unary - !, < <= > >= == !=, && ||, ?: ;
// functions min, max, abs, ceil, floor, log2, sqrt, pow; parentheses; identifiers
// [A-Za-z_][A-Za-z0-9_]*.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ar {

class Expression {
 public:
  // nullopt + *error ("unexpected ')' at column 14") on a syntax error.
  static std::optional<Expression> parse(const std::string& text, std::string* error);

  // nullopt + *error ("unknown name 'BLOK_M'", "division by zero") on failure.
  std::optional<double> evaluate(const std::map<std::string, double>& vars,
                                 std::string* error) const;
  // Identifiers the expression reads (for validating a manifest up front).
  std::vector<std::string> identifiers() const;
  const std::string& text() const { return text_; }

  struct Node;

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
};

}  // namespace ar
