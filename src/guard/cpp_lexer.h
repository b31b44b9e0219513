#pragma once
// A small C++ lexer for the guard. It reads only the lines of the preprocessed
// candidate that belong to editable files, so it never has to understand the
// whole language: comments are already gone, macros are already expanded. It
// keeps string contents (decoded) apart from identifiers, so a word inside a
// string never matches an identifier rule, while asm strings can still be read.
#include <string>
#include <vector>

namespace ar::guard_detail {

// One physical line of an editable file as the preprocessor printed it.
struct SourceLine {
  int source = 0;     // index into the editable files
  int line = 0;       // line number in that file
  std::string text;
};

enum class TokenKind { Identifier, Number, String, Char, Punct, Body };

struct Token {
  TokenKind kind = TokenKind::Punct;
  std::string text;   // spelling; for String/Char the decoded contents
  int source = 0;
  int line = 0;
  int column = 0;     // byte offset of the first character in its line
  int end_column = 0; // one past the last character (same line)

  bool is(const char* s) const { return (kind == TokenKind::Punct || kind == TokenKind::Identifier) && text == s; }
  bool is_ident() const { return kind == TokenKind::Identifier; }
};

// Lexes the lines in order as one stream. Block comments and raw strings may span
// lines (the preprocessor keeps comments only with -C, but a hand-built input may
// have them).
std::vector<Token> lex_lines(const std::vector<SourceLine>& lines);

// Resolves C escape sequences (\n, \x41, \101, \u00e9, ...): "\x74imer" must read
// as "timer" to a rule that looks inside asm strings.
std::string decode_escapes(const std::string& body);

}  // namespace ar::guard_detail
