#include "autoresearch/util/expression.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <system_error>

#include <fmt/format.h>

namespace ar {

// One node of the syntax tree. Columns are 1-based, kept for error messages.
struct Expression::Node {
  enum class Kind { kNumber, kName, kUnary, kBinary, kTernary, kCall };
  Kind kind = Kind::kNumber;
  double number = 0;
  std::string text;  // the name, the function or the operator
  int column = 0;
  std::vector<std::shared_ptr<const Node>> args;
};

namespace {

using Node = Expression::Node;
using NodePtr = std::shared_ptr<const Node>;

struct Token {
  enum class Kind { kNumber, kName, kOp, kEnd };
  Kind kind = Kind::kEnd;
  std::string text;
  double number = 0;
  int column = 0;
};

// Parse errors unwind to Expression::parse, which turns them into a value.
struct SyntaxError {
  std::string message;
};

std::string describe(const Token& t) {
  return t.kind == Token::Kind::kEnd ? "end of expression" : "'" + t.text + "'";
}

std::vector<Token> tokenize(const std::string& s) {
  static const char* const kOps[] = {"**", "<=", ">=", "==", "!=", "&&", "||", "+", "-", "*",
                                     "/",  "%",  "<",  ">",  "!",  "?",  ":",  "(", ")", ","};
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const int column = static_cast<int>(i) + 1;
    if (std::isspace(c)) {
      ++i;
    } else if (std::isdigit(c) || (c == '.' && i + 1 < s.size() && std::isdigit(s[i + 1]))) {
      // from_chars, not strtod: a manifest must not parse differently under a
      // locale whose decimal point is a comma.
      double value = 0;
      const auto [end, ec] = std::from_chars(s.data() + i, s.data() + s.size(), value);
      if (ec != std::errc()) throw SyntaxError{fmt::format("bad number at column {}", column)};
      const size_t length = static_cast<size_t>(end - (s.data() + i));
      tokens.push_back({Token::Kind::kNumber, s.substr(i, length), value, column});
      i += length;
    } else if (std::isalpha(c) || c == '_') {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      tokens.push_back({Token::Kind::kName, s.substr(i, j - i), 0, column});
      i = j;
    } else {
      const char* const* op = std::find_if(std::begin(kOps), std::end(kOps), [&](const char* o) {
        return s.compare(i, std::char_traits<char>::length(o), o) == 0;
      });
      if (op == std::end(kOps)) {
        std::string hint;
        if (c == '=') hint = " (did you mean '=='?)";
        if (c == '&') hint = " (did you mean '&&'?)";
        if (c == '|') hint = " (did you mean '||'?)";
        throw SyntaxError{fmt::format("unexpected '{}' at column {}{}", s[i], column, hint)};
      }
      tokens.push_back({Token::Kind::kOp, *op, 0, column});
      i += std::char_traits<char>::length(*op);
    }
  }
  tokens.push_back({Token::Kind::kEnd, "", 0, static_cast<int>(s.size()) + 1});
  return tokens;
}

int arity(const std::string& function) {
  if (function == "min" || function == "max" || function == "pow") return 2;
  if (function == "abs" || function == "ceil" || function == "floor" || function == "log2" ||
      function == "sqrt") {
    return 1;
  }
  return -1;  // not a function
}

// Precedence climbing, lowest first: ?: || && (== !=) (< <= > >=) (+ -)
// (* / %) unary ** primary. ** binds tighter than a unary minus on its left
// (-2**2 is -4, as in Python) and is right-associative.
class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  NodePtr parse_all() {
    if (peek().kind == Token::Kind::kEnd) throw SyntaxError{"empty expression"};
    NodePtr root = ternary();
    if (peek().kind != Token::Kind::kEnd) unexpected(peek());
    return root;
  }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  const Token& take() { return tokens_[pos_++]; }
  bool at_op(const char* op) const {
    return peek().kind == Token::Kind::kOp && peek().text == op;
  }
  [[noreturn]] static void unexpected(const Token& t) {
    throw SyntaxError{fmt::format("unexpected {} at column {}", describe(t), t.column)};
  }
  void expect(const char* op) {
    if (!at_op(op)) unexpected(peek());
    ++pos_;
  }

  static NodePtr make(Node::Kind kind, const Token& at, std::vector<NodePtr> args) {
    auto node = std::make_shared<Node>();
    node->kind = kind;
    node->text = at.text;
    node->column = at.column;
    node->args = std::move(args);
    return node;
  }

  // Guards the recursion: a hostile "((((...1" must be an error, not a crash.
  struct Nesting {
    explicit Nesting(Parser& p) : parser(p) {
      if (++parser.depth_ > kMaxDepth) {
        throw SyntaxError{fmt::format("expression nested too deeply at column {}",
                                      parser.peek().column)};
      }
    }
    ~Nesting() { --parser.depth_; }
    Parser& parser;
  };
  static constexpr int kMaxDepth = 200;

  NodePtr ternary() {
    Nesting nesting(*this);
    NodePtr condition = logical_or();
    if (!at_op("?")) return condition;
    const Token& question = take();
    NodePtr if_true = ternary();
    expect(":");
    NodePtr if_false = ternary();
    return make(Node::Kind::kTernary, question, {condition, if_true, if_false});
  }

  // One left-associative level of binary operators.
  template <typename Next>
  NodePtr binary_level(std::initializer_list<const char*> ops, Next next) {
    NodePtr left = (this->*next)();
    for (;;) {
      const bool found = std::any_of(ops.begin(), ops.end(), [&](const char* o) { return at_op(o); });
      if (!found) return left;
      const Token& t = take();
      NodePtr right = (this->*next)();
      left = make(Node::Kind::kBinary, t, {left, right});
    }
  }

  NodePtr logical_or() { return binary_level({"||"}, &Parser::logical_and); }
  NodePtr logical_and() { return binary_level({"&&"}, &Parser::equality); }
  NodePtr equality() { return binary_level({"==", "!="}, &Parser::relational); }
  NodePtr relational() { return binary_level({"<", "<=", ">", ">="}, &Parser::additive); }
  NodePtr additive() { return binary_level({"+", "-"}, &Parser::multiplicative); }
  NodePtr multiplicative() { return binary_level({"*", "/", "%"}, &Parser::unary); }

  NodePtr unary() {
    Nesting nesting(*this);
    if (at_op("-") || at_op("!") || at_op("+")) {
      const Token& t = take();
      return make(Node::Kind::kUnary, t, {unary()});
    }
    return power();
  }

  NodePtr power() {
    NodePtr base = primary();
    if (!at_op("**")) return base;
    const Token& t = take();
    return make(Node::Kind::kBinary, t, {base, unary()});  // 2**-1, 2**3**2 = 2**9
  }

  NodePtr primary() {
    const Token& t = take();
    if (t.kind == Token::Kind::kNumber) {
      auto node = std::make_shared<Node>();
      node->kind = Node::Kind::kNumber;
      node->number = t.number;
      node->text = t.text;
      node->column = t.column;
      return node;
    }
    if (t.kind == Token::Kind::kName) return at_op("(") ? call(t) : make(Node::Kind::kName, t, {});
    if (t.kind == Token::Kind::kOp && t.text == "(") {
      NodePtr inner = ternary();
      expect(")");
      return inner;
    }
    unexpected(t);
  }

  NodePtr call(const Token& name) {
    const int expected = arity(name.text);
    if (expected < 0) {
      throw SyntaxError{fmt::format("unknown function '{}' at column {}", name.text, name.column)};
    }
    expect("(");
    std::vector<NodePtr> args;
    if (!at_op(")")) {
      args.push_back(ternary());
      while (at_op(",")) {
        ++pos_;
        args.push_back(ternary());
      }
    }
    expect(")");
    if (static_cast<int>(args.size()) != expected) {
      throw SyntaxError{fmt::format("{}() takes {} argument{}, not {} (column {})", name.text,
                                    expected, expected == 1 ? "" : "s", args.size(), name.column)};
    }
    return make(Node::Kind::kCall, name, std::move(args));
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
};

// Evaluation errors unwind to Expression::evaluate, like SyntaxError.
struct EvalError {
  std::string message;
};

class Evaluator {
 public:
  explicit Evaluator(const std::map<std::string, double>& vars) : vars_(vars) {}

  double eval(const Node& n) const {
    switch (n.kind) {
      case Node::Kind::kNumber:
        return n.number;
      case Node::Kind::kName: {
        const auto it = vars_.find(n.text);
        if (it == vars_.end()) {
          throw EvalError{fmt::format("unknown name '{}' at column {}", n.text, n.column)};
        }
        return it->second;
      }
      case Node::Kind::kUnary: {
        const double x = eval(*n.args[0]);
        if (n.text == "-") return -x;
        if (n.text == "!") return x == 0 ? 1 : 0;
        return x;
      }
      case Node::Kind::kTernary:
        return eval(*n.args[0]) != 0 ? eval(*n.args[1]) : eval(*n.args[2]);
      case Node::Kind::kBinary:
        return binary(n);
      case Node::Kind::kCall:
        return call(n);
    }
    return 0;
  }

 private:
  double binary(const Node& n) const {
    const std::string& op = n.text;
    const double a = eval(*n.args[0]);
    // && and || evaluate the right side only when needed, so a guard such as
    // "B != 0 && N % B == 0" never divides by zero.
    if (op == "&&") return a != 0 && eval(*n.args[1]) != 0 ? 1 : 0;
    if (op == "||") return a != 0 || eval(*n.args[1]) != 0 ? 1 : 0;
    const double b = eval(*n.args[1]);
    if (op == "+") return a + b;
    if (op == "-") return a - b;
    if (op == "*") return a * b;
    if ((op == "/" || op == "%") && b == 0) {
      throw EvalError{fmt::format("division by zero at column {}", n.column)};
    }
    if (op == "/") return a / b;
    if (op == "%") return std::fmod(a, b);
    if (op == "**") return finite("**", std::pow(a, b), n.column);
    if (op == "<") return a < b;
    if (op == "<=") return a <= b;
    if (op == ">") return a > b;
    if (op == ">=") return a >= b;
    if (op == "==") return a == b;
    return a != b;  // "!=", the last operator the parser produces
  }

  double call(const Node& n) const {
    const std::string& f = n.text;
    const double a = eval(*n.args[0]);
    if (f == "abs") return std::abs(a);
    if (f == "ceil") return std::ceil(a);
    if (f == "floor") return std::floor(a);
    if (f == "log2") return finite("log2()", std::log2(a), n.column);
    if (f == "sqrt") return finite("sqrt()", std::sqrt(a), n.column);
    const double b = eval(*n.args[1]);
    if (f == "min") return std::min(a, b);
    if (f == "max") return std::max(a, b);
    return finite("pow()", std::pow(a, b), n.column);  // "pow", the last one
  }

  // log2(0), sqrt(-1), pow(-8, 1/3): a formula that went out of its domain
  // is an error worth reporting, not a NaN that makes every constraint false.
  static double finite(const char* what, double value, int column) {
    if (!std::isfinite(value)) {
      throw EvalError{fmt::format("{} gives {} at column {}", what, value, column)};
    }
    return value;
  }

  const std::map<std::string, double>& vars_;
};

void collect_names(const Node& n, std::vector<std::string>& out) {
  if (n.kind == Node::Kind::kName && std::find(out.begin(), out.end(), n.text) == out.end()) {
    out.push_back(n.text);
  }
  for (const NodePtr& child : n.args) collect_names(*child, out);
}

}  // namespace

std::optional<Expression> Expression::parse(const std::string& text, std::string* error) {
  try {
    Expression e;
    e.text_ = text;
    e.root_ = Parser(tokenize(text)).parse_all();
    return e;
  } catch (const SyntaxError& e) {
    if (error) *error = e.message;
    return std::nullopt;
  }
}

std::optional<double> Expression::evaluate(const std::map<std::string, double>& vars,
                                           std::string* error) const {
  if (!root_) {
    if (error) *error = "empty expression";
    return std::nullopt;
  }
  try {
    return Evaluator(vars).eval(*root_);
  } catch (const EvalError& e) {
    if (error) *error = e.message;
    return std::nullopt;
  }
}

std::vector<std::string> Expression::identifiers() const {
  std::vector<std::string> names;
  if (root_) collect_names(*root_, names);
  return names;
}

}  // namespace ar
