#include "autoresearch/util/expression.h"

#include <map>
#include <string>

#include "catch.h"

namespace ar {
namespace {

// The value of text under vars; fails the test with the error if there is one.
double value_of(const std::string& text, const std::map<std::string, double>& vars = {}) {
  std::string error;
  const std::optional<Expression> e = Expression::parse(text, &error);
  INFO(text << ": " << error);
  REQUIRE(e);
  const std::optional<double> v = e->evaluate(vars, &error);
  INFO(text << ": " << error);
  REQUIRE(v);
  return *v;
}

std::string parse_error(const std::string& text) {
  std::string error;
  const std::optional<Expression> e = Expression::parse(text, &error);
  CHECK_FALSE(e);
  return error;
}

std::string eval_error(const std::string& text, const std::map<std::string, double>& vars = {}) {
  std::string error;
  const std::optional<Expression> e = Expression::parse(text, &error);
  INFO(text << ": " << error);
  REQUIRE(e);
  CHECK_FALSE(e->evaluate(vars, &error));
  return error;
}

}  // namespace

TEST_CASE("expression: arithmetic with the usual precedence", "[util][expression]") {
  CHECK(value_of("1 + 2 * 3") == 7);
  CHECK(value_of("(1 + 2) * 3") == 9);
  CHECK(value_of("10 - 4 - 3") == 3);      // left-associative
  CHECK(value_of("64 / 4 / 2") == 8);
  CHECK(value_of("7 % 3") == 1);
  CHECK(value_of("7.5 % 2") == Approx(1.5));  // fmod
  CHECK(value_of("2 ** 10") == 1024);
  CHECK(value_of("2 ** 3 ** 2") == 512);   // right-associative
  CHECK(value_of("-2 ** 2") == -4);        // as in Python
  CHECK(value_of("2 ** -1") == 0.5);
  CHECK(value_of("- -3") == 3);
  CHECK(value_of("+3") == 3);
  CHECK(value_of("1.5e3 + .5") == 1500.5);
  CHECK(value_of("2*3+4*5") == 26);
}

TEST_CASE("expression: comparisons and logic yield 1 or 0", "[util][expression]") {
  CHECK(value_of("3 < 4") == 1);
  CHECK(value_of("3 <= 3") == 1);
  CHECK(value_of("3 > 4") == 0);
  CHECK(value_of("4 >= 5") == 0);
  CHECK(value_of("2 == 2") == 1);
  CHECK(value_of("2 != 2") == 0);
  CHECK(value_of("1 && 0") == 0);
  CHECK(value_of("1 || 0") == 1);
  CHECK(value_of("!0") == 1);
  CHECK(value_of("!5") == 0);
  CHECK(value_of("1 + 1 == 2 && 3 > 2") == 1);  // comparisons bind tighter than &&
  CHECK(value_of("0 && 1 || 1") == 1);          // && binds tighter than ||
}

TEST_CASE("expression: && || and ?: evaluate only the branch they need", "[util][expression]") {
  CHECK(value_of("B != 0 && N % B == 0", {{"B", 0}, {"N", 64}}) == 0);
  CHECK(value_of("B == 0 || N % B == 0", {{"B", 0}, {"N", 64}}) == 1);
  CHECK(value_of("B > 0 ? N / B : -1", {{"B", 0}, {"N", 64}}) == -1);
  CHECK(value_of("B > 0 ? N / B : -1", {{"B", 16}, {"N", 64}}) == 4);
  CHECK(value_of("1 ? 2 : 0 ? 3 : 4") == 2);  // right-associative
  CHECK(value_of("0 ? 2 : 0 ? 3 : 4") == 4);
  CHECK(value_of("x < 0 ? 0 : x", {{"x", 5}}) == 5);
}

TEST_CASE("expression: functions", "[util][expression]") {
  CHECK(value_of("min(3, 4)") == 3);
  CHECK(value_of("max(3, 4)") == 4);
  CHECK(value_of("abs(-2.5)") == 2.5);
  CHECK(value_of("ceil(2.1)") == 3);
  CHECK(value_of("floor(2.9)") == 2);
  CHECK(value_of("log2(1024)") == 10);
  CHECK(value_of("sqrt(16)") == 4);
  CHECK(value_of("pow(2, 5)") == 32);
  CHECK(value_of("max(min(1, 2), abs(-3) * 2)") == 6);
}

TEST_CASE("expression: manifest formulas and constraints", "[util][expression]") {
  const std::map<std::string, double> shape{
      {"batch", 64}, {"heads", 128}, {"topk", 2048}, {"context", 1024}};
  CHECK(value_of("2*batch*heads*min(topk, context)*(576+512)", shape) ==
        2.0 * 64 * 128 * 1024 * (576 + 512));
  const std::map<std::string, double> tile{{"BLOCK_M", 64}, {"BLOCK_K", 64}, {"THREADS", 256}};
  CHECK(value_of("BLOCK_M * BLOCK_K * 4 <= 65536 && THREADS % 32 == 0", tile) == 1);
  CHECK(value_of("BLOCK_M * BLOCK_K * 4 <= 8192", tile) == 0);
}

TEST_CASE("expression: identifiers lists each variable once, no functions", "[util][expression]") {
  std::string error;
  const auto e = Expression::parse("min(BLOCK_M, N) * BLOCK_M + max(K, 1) > _x1", &error);
  REQUIRE(e);
  CHECK(e->identifiers() == std::vector<std::string>{"BLOCK_M", "N", "K", "_x1"});
  CHECK(e->text() == "min(BLOCK_M, N) * BLOCK_M + max(K, 1) > _x1");
}

TEST_CASE("expression: syntax errors name what and where", "[util][expression]") {
  CHECK(parse_error("(BLOCK_M + 2))") == "unexpected ')' at column 14");
  CHECK(parse_error("1 +") == "unexpected end of expression at column 4");
  CHECK(parse_error("") == "empty expression");
  CHECK(parse_error("   ") == "empty expression");
  CHECK(parse_error("(1 + 2") == "unexpected end of expression at column 7");
  CHECK(parse_error("1 2") == "unexpected '2' at column 3");
  CHECK(parse_error("2x") == "unexpected 'x' at column 2");
  CHECK(parse_error("a = 1") == "unexpected '=' at column 3 (did you mean '=='?)");
  CHECK(parse_error("a & b") == "unexpected '&' at column 3 (did you mean '&&'?)");
  CHECK(parse_error("a @ b") == "unexpected '@' at column 3");
  CHECK(parse_error("1 ? 2") == "unexpected end of expression at column 6");
  CHECK(parse_error("min(1)") == "min() takes 2 arguments, not 1 (column 1)");
  CHECK(parse_error("sqrt(1, 2)") == "sqrt() takes 1 argument, not 2 (column 1)");
  CHECK(parse_error("max()") == "max() takes 2 arguments, not 0 (column 1)");
  CHECK(parse_error("mni(1, 2)") == "unknown function 'mni' at column 1");
  CHECK(parse_error("min(1,)") == "unexpected ')' at column 7");
  CHECK(parse_error(std::string(500, '(') + "1" + std::string(500, ')'))
            .find("nested too deeply") != std::string::npos);
}

TEST_CASE("expression: evaluation errors", "[util][expression]") {
  CHECK(eval_error("BLOK_M * 2", {{"BLOCK_M", 64}}) == "unknown name 'BLOK_M' at column 1");
  CHECK(eval_error("N / B", {{"N", 1}, {"B", 0}}) == "division by zero at column 3");
  CHECK(eval_error("N % B", {{"N", 1}, {"B", 0}}) == "division by zero at column 3");
  CHECK(eval_error("log2(0)").find("log2()") != std::string::npos);
  CHECK(eval_error("sqrt(-1)").find("sqrt()") != std::string::npos);

  // A parse failure or a null error pointer is not a crash.
  CHECK_FALSE(Expression::parse(")", nullptr));
  const auto e = Expression::parse("x", nullptr);
  REQUIRE(e);
  CHECK_FALSE(e->evaluate({}, nullptr));
}

}  // namespace ar
