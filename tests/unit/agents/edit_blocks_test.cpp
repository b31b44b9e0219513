// The parser of an LLM's edit blocks, on well-formed and adversarial answers.
#include <random>

#include "autoresearch/agents/edit_blocks.h"
#include "catch.h"

namespace ar {
namespace {

bool mentions(const std::vector<std::string>& problems, const std::string& text) {
  for (const auto& p : problems)
    if (p.find(text) != std::string::npos) return true;
  return false;
}

TEST_CASE("a plain block gives its path, SEARCH and REPLACE lines and answer line") {
  ParsedEdits p = parse_edit_blocks(
      "IDEA: unroll the loop.\n"
      "kernel.cu\n"
      "<<<<<<< SEARCH\n"
      "  int x = 1;\n"
      "=======\n"
      "  int x = 2;\n"
      "  int y = 3;\n"
      ">>>>>>> REPLACE\n"
      "That is all.\n");
  REQUIRE(p.problems.empty());
  REQUIRE(p.blocks.size() == 1);
  CHECK(p.blocks[0].path == "kernel.cu");
  CHECK_FALSE(p.blocks[0].whole_file);
  CHECK(p.blocks[0].search == "  int x = 1;\n");
  CHECK(p.blocks[0].replace == "  int x = 2;\n  int y = 3;\n");
  CHECK(p.blocks[0].answer_line == 3);
}

TEST_CASE("blocks inside fences: path before or inside, backticks or tildes, tag or none") {
  const char* answers[] = {
      "kernel.cu\n```cuda\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n",
      "```\nkernel.cu\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n",
      "kernel.cu\n~~~~\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n~~~~\n",
      "kernel.cu\n````c++\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n````\n",
      // the path in a fence of its own, then the block in another (seen from DeepSeek models)
      "```cuda\nkernel.cu\n```\n```cuda\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n",
  };
  for (const char* answer : answers) {
    INFO(answer);
    ParsedEdits p = parse_edit_blocks(answer);
    CHECK(p.problems.empty());
    REQUIRE(p.blocks.size() == 1);
    CHECK(p.blocks[0].path == "kernel.cu");
    CHECK(p.blocks[0].search == "a\n");
    CHECK(p.blocks[0].replace == "b\n");
  }
}

TEST_CASE("a fence inside the code of a block does not end the block") {
  ParsedEdits p = parse_edit_blocks(
      "notes.md\n````\n<<<<<<< SEARCH\n```\nold\n```\n=======\n```\nnew\n```\n>>>>>>> REPLACE\n````\n");
  REQUIRE(p.problems.empty());
  REQUIRE(p.blocks.size() == 1);
  CHECK(p.blocks[0].search == "```\nold\n```\n");
  CHECK(p.blocks[0].replace == "```\nnew\n```\n");
}

TEST_CASE("decorated path lines are stripped to the path") {
  for (const char* line : {"**kernel.cu**", "`kernel.cu`:", "### kernel.cu", "  kernels/sparse_mla/kernel.cu  ",
                           "**`./kernel.cu`**:"}) {
    INFO(line);
    ParsedEdits p = parse_edit_blocks(std::string(line) + "\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n");
    REQUIRE(p.blocks.size() == 1);
    std::string path = p.blocks[0].path;
    CHECK((path == "kernel.cu" || path == "kernels/sparse_mla/kernel.cu" || path == "./kernel.cu"));
  }
}

TEST_CASE("markers with 5 to 9 characters are accepted, others are reported") {
  ParsedEdits ok = parse_edit_blocks("kernel.cu\n<<<<< SEARCH   \na\n=========\nb\n>>>>>>>>> REPLACE\t\n");
  CHECK(ok.problems.empty());
  CHECK(ok.blocks.size() == 1);

  ParsedEdits four = parse_edit_blocks("kernel.cu\n<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n");
  CHECK(four.blocks.empty());
  CHECK(mentions(four.problems, "line 2: '<<<< SEARCH' looks like a marker"));

  ParsedEdits ten = parse_edit_blocks("kernel.cu\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>>>>> REPLACE\n");
  CHECK(ten.blocks.empty());
  CHECK(mentions(ten.problems, "line 6"));
  CHECK(mentions(ten.problems, "REPLACE"));
}

TEST_CASE("a block with no path line before it is a problem") {
  ParsedEdits bare = parse_edit_blocks("<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n");
  CHECK(bare.blocks.empty());
  CHECK(mentions(bare.problems, "line 1: this SEARCH block has no path line"));

  ParsedEdits prose = parse_edit_blocks("Here is the change:\n```cuda\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n");
  CHECK(prose.blocks.empty());
  CHECK(mentions(prose.problems, "line 3: this SEARCH block has no path line"));

  // a line of code (here a closing brace) is not a path either
  ParsedEdits brace = parse_edit_blocks("```\n}\n```\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n");
  CHECK(brace.blocks.empty());
  CHECK(mentions(brace.problems, "no path line"));
}

TEST_CASE("a block right after another continues its file, in order") {
  ParsedEdits p = parse_edit_blocks(
      "kernel.cu\n```\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\nc\n=======\nd\n"
      ">>>>>>> REPLACE\n```\n```\n<<<<<<< SEARCH\ne\n=======\nf\n>>>>>>> REPLACE\n```\n");
  REQUIRE(p.problems.empty());
  REQUIRE(p.blocks.size() == 3);
  for (const auto& b : p.blocks) CHECK(b.path == "kernel.cu");
  CHECK(p.blocks[1].search == "c\n");
  CHECK(p.blocks[2].replace == "f\n");
}

TEST_CASE("several files in one answer keep their own paths") {
  ParsedEdits p = parse_edit_blocks(
      "kernel.cu\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n\nAnd the tunables:\n\ntunables.json\n"
      "<<<<<<< SEARCH\n\"X\": 1\n=======\n\"X\": 2\n>>>>>>> REPLACE\n");
  REQUIRE(p.blocks.size() == 2);
  CHECK(p.blocks[0].path == "kernel.cu");
  CHECK(p.blocks[1].path == "tunables.json");
}

TEST_CASE("a truncated answer is a problem, never a partial block") {
  ParsedEdits no_divider = parse_edit_blocks("kernel.cu\n<<<<<<< SEARCH\na\nb\n");
  CHECK(no_divider.blocks.empty());
  CHECK(mentions(no_divider.problems, "line 2: the block for kernel.cu is cut short: no '======='"));

  ParsedEdits no_end = parse_edit_blocks("kernel.cu\n<<<<<<< SEARCH\na\n=======\nb\nc");
  CHECK(no_end.blocks.empty());
  CHECK(mentions(no_end.problems, "cut short: no '>>>>>>> REPLACE'"));

  ParsedEdits whole = parse_edit_blocks("kernel.cu\n```cuda\n__global__ void k() {\n");
  CHECK(whole.blocks.empty());
  CHECK(mentions(whole.problems, "line 2: the whole file for kernel.cu is cut short"));

  // the complete first block is still returned, but the answer has a problem
  ParsedEdits second = parse_edit_blocks(
      "kernel.cu\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\nkernel.cu\n<<<<<<< SEARCH\nc\n=======\n");
  CHECK(second.blocks.size() == 1);
  CHECK(mentions(second.problems, "line 8"));
}

TEST_CASE("nested and repeated markers make the block malformed") {
  // a second SEARCH marker before the divider: the inner block is parsed on its own
  ParsedEdits nested = parse_edit_blocks(
      "kernel.cu\n<<<<<<< SEARCH\na\n<<<<<<< SEARCH\nb\n=======\nc\n>>>>>>> REPLACE\n");
  CHECK(mentions(nested.problems, "line 4: a second '<<<<<<< SEARCH' inside the block for kernel.cu opened at line 2"));
  REQUIRE(nested.blocks.size() == 1);
  CHECK(nested.blocks[0].path == "kernel.cu");
  CHECK(nested.blocks[0].search == "b\n");

  // code that holds its own ======= line: the divider is the first one, so the
  // REPLACE part then holds a marker line and the block is refused
  ParsedEdits divider = parse_edit_blocks(
      "notes.rst\n<<<<<<< SEARCH\nTitle\n=======\nold\n=======\nTitle\n=======\nnew\n>>>>>>> REPLACE\n"
      "kernel.cu\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n");
  CHECK(mentions(divider.problems, "line 6: '=======' inside the REPLACE lines of the block for notes.rst"));
  REQUIRE(divider.blocks.size() == 1);   // parsing resumes after the bad block's end marker
  CHECK(divider.blocks[0].path == "kernel.cu");

  ParsedEdits search_in_replace = parse_edit_blocks(
      "kernel.cu\n<<<<<<< SEARCH\na\n=======\nb\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n");
  CHECK(mentions(search_in_replace.problems, "line 6: '<<<<<<< SEARCH' inside the REPLACE lines"));

  ParsedEdits stray = parse_edit_blocks("kernel.cu\n>>>>>>> REPLACE\n");
  CHECK(mentions(stray.problems, "line 2: '>>>>>>> REPLACE' with no '<<<<<<< SEARCH'"));

  ParsedEdits early = parse_edit_blocks("kernel.cu\n<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n");
  CHECK(mentions(early.problems, "line 4: '>>>>>>> REPLACE' before the '======='"));
  CHECK(early.blocks.empty());
}

TEST_CASE("a lone ======= in prose is a Markdown underline, not a problem") {
  ParsedEdits p = parse_edit_blocks("Plan\n=======\n\nkernel.cu\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n");
  CHECK(p.problems.empty());
  CHECK(p.blocks.size() == 1);
}

TEST_CASE("a CRLF answer gives LF blocks; tabs and unicode pass through unchanged") {
  ParsedEdits p = parse_edit_blocks(
      "kernel.cu\r\n```cuda\r\n<<<<<<< SEARCH\r\n\tfloat s = 0.f;  // Σ über k\r\n=======\r\n"
      "\tfloat s = 1.f;  // Σ über k ✓\r\n>>>>>>> REPLACE\r\n```\r\n");
  REQUIRE(p.problems.empty());
  REQUIRE(p.blocks.size() == 1);
  CHECK(p.blocks[0].search == "\tfloat s = 0.f;  // Σ über k\n");
  CHECK(p.blocks[0].replace == "\tfloat s = 1.f;  // Σ über k ✓\n");
}

TEST_CASE("a whole file comes as a fence right after its path") {
  ParsedEdits p = parse_edit_blocks(
      "I rewrote the tunables.\n\ntunables.json\n```json\n{\"TILE\": 32}\n```\n\nkernel.cu:\n\n```cuda\n"
      "__global__ void k() {}\n```\n");
  REQUIRE(p.problems.empty());
  REQUIRE(p.blocks.size() == 2);
  CHECK(p.blocks[0].whole_file);
  CHECK(p.blocks[0].path == "tunables.json");
  CHECK(p.blocks[0].replace == "{\"TILE\": 32}\n");
  CHECK(p.blocks[0].answer_line == 4);
  CHECK(p.blocks[1].path == "kernel.cu");
  CHECK(p.blocks[1].replace == "__global__ void k() {}\n");
}

TEST_CASE("a quoted snippet after prose is not a whole file") {
  ParsedEdits p = parse_edit_blocks(
      "Before:\n```cuda\nint a;\n```\nThe loop in kernel.cu:\n```\nfor (;;) {}\n```\n"
      "kernel.cu\n<<<<<<< SEARCH\nint a;\n=======\nint b;\n>>>>>>> REPLACE\n");
  REQUIRE(p.problems.empty());
  REQUIRE(p.blocks.size() == 1);
  CHECK_FALSE(p.blocks[0].whole_file);
}

TEST_CASE("an empty whole file is a problem") {
  ParsedEdits p = parse_edit_blocks("kernel.cu\n```\n\n```\n");
  CHECK(p.blocks.empty());
  CHECK(mentions(p.problems, "line 2: the whole file for kernel.cu is empty"));
}

TEST_CASE("an answer without blocks, or over the size limit, is a problem") {
  ParsedEdits none = parse_edit_blocks("I think the kernel is already optimal.");
  CHECK(none.blocks.empty());
  CHECK(mentions(none.problems, "no edit blocks"));
  CHECK(mentions(parse_edit_blocks("").problems, "no edit blocks"));

  EditLimits limits;
  limits.max_answer_bytes = 64;
  std::string big = "kernel.cu\n<<<<<<< SEARCH\n" + std::string(100, 'a') + "\n=======\nb\n>>>>>>> REPLACE\n";
  ParsedEdits over = parse_edit_blocks(big, limits);
  CHECK(over.blocks.empty());
  CHECK(mentions(over.problems, "over the limit of 64 bytes"));
}

// Random mixtures of marker lines, fences, paths and code: the parser must never
// crash, and every block it returns must be complete and carry a path.
TEST_CASE("random marker soup never crashes and yields only complete blocks") {
  const std::vector<std::string> pieces = {
      "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE", "```", "```cuda", "~~~", "kernel.cu", "**kernel.cu**:",
      "int x = 1;", "\tfloat y;", "", "  ", "Σ ✓", "<<<< SEARCH", ">>>>>>>>>> REPLACE", "========", "}",
      "Here is the fix:", "<<<<<<< SEARCH\r", "```\r", "\xEF\xBB\xBF", "\xC3"};
  std::mt19937 rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string answer;
    int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) answer += pieces[rng() % pieces.size()] + (rng() % 8 ? "\n" : "");
    ParsedEdits p = parse_edit_blocks(answer);
    CHECK((!p.blocks.empty() || !p.problems.empty()));
    for (const auto& b : p.blocks) {
      CHECK_FALSE(b.path.empty());
      CHECK(b.answer_line >= 1);
      if (!b.search.empty()) CHECK(b.search.back() == '\n');
      if (!b.replace.empty()) CHECK(b.replace.back() == '\n');
    }
  }
}

}  // namespace
}  // namespace ar
