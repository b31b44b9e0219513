// Applying edit blocks to in-memory files, and the feedback sent to the model.
#include <fstream>
#include <map>
#include <sstream>

#include "autoresearch/agents/edit_blocks.h"
#include "catch.h"

namespace ar {
namespace {

const std::vector<std::string> kEditable = {"kernel.cu", "tunables.json"};
const std::string kPrefix = "kernels/sparse_mla";

struct Files {
  Files() = default;
  Files(std::initializer_list<std::pair<const std::string, std::string>> t) : text(t) {}
  std::map<std::string, std::string> text;
  std::vector<std::string> asked;   // which paths the applier read
  std::function<std::optional<std::string>(const std::string&)> reader() {
    return [this](const std::string& p) -> std::optional<std::string> {
      asked.push_back(p);
      auto it = text.find(p);
      if (it == text.end()) return std::nullopt;
      return it->second;
    };
  }
};

EditBlock block(std::string path, std::string search, std::string replace) {
  EditBlock b;
  b.path = std::move(path);
  b.search = std::move(search);
  b.replace = std::move(replace);
  return b;
}

AppliedEdits apply_to(Files& files, const std::vector<EditBlock>& blocks, const EditLimits& limits = {}) {
  return apply_edit_blocks(blocks, files.reader(), kEditable, kPrefix, limits);
}

const std::string kKernel =
    "#include <cuda_bf16.h>\n"
    "\n"
    "__global__ void k(float* out) {\n"
    "  float s = 0.f;\n"
    "  for (int i = 0; i < 16; ++i) {\n"
    "    s += 1.f;\n"
    "  }\n"
    "  out[threadIdx.x] = s;\n"
    "}\n";

TEST_CASE("a matching block changes only its lines; unchanged files are not returned") {
  Files f({{"kernel.cu", kKernel}, {"tunables.json", "{}\n"}});
  AppliedEdits r = apply_to(f, {block("kernel.cu", "  float s = 0.f;\n", "  float s = 2.f;\n")});
  REQUIRE(r.ok());
  REQUIRE(r.files.size() == 1);
  std::string want = kKernel;
  want.replace(want.find("0.f;"), 4, "2.f;");
  CHECK(r.files.at("kernel.cu") == want);

  AppliedEdits same = apply_to(f, {block("kernel.cu", "  float s = 0.f;\n", "  float s = 0.f;\n")});
  CHECK(same.ok());
  CHECK(same.files.empty());
}

TEST_CASE("matching is by whole lines, not inside a line") {
  Files f({{"kernel.cu", "  xs = 1;\n  s = 1;\n"}});
  AppliedEdits r = apply_to(f, {block("kernel.cu", "s = 1;\n", "s = 2;\n")});
  CHECK_FALSE(r.ok());   // "s = 1;" is not a whole line of the file
  AppliedEdits whole = apply_to(f, {block("kernel.cu", "  s = 1;\n", "  s = 2;\n")});
  REQUIRE(whole.ok());
  CHECK(whole.files.at("kernel.cu") == "  xs = 1;\n  s = 2;\n");
}

TEST_CASE("several blocks on one file apply in order, each seeing the last one's result") {
  Files f({{"kernel.cu", kKernel}});
  AppliedEdits r = apply_to(f, {block("kernel.cu", "    s += 1.f;\n", "    s += 2.f;\n"),
                             block("kernel.cu", "    s += 2.f;\n  }\n", "    s += 2.f;\n  }\n  s *= 0.5f;\n"),
                             block("./kernel.cu", "#include <cuda_bf16.h>\n", "#include <cuda_fp16.h>\n")});
  REQUIRE(r.ok());
  CHECK(r.files.at("kernel.cu") ==
        "#include <cuda_fp16.h>\n\n__global__ void k(float* out) {\n  float s = 0.f;\n"
        "  for (int i = 0; i < 16; ++i) {\n    s += 2.f;\n  }\n  s *= 0.5f;\n  out[threadIdx.x] = s;\n}\n");
}

TEST_CASE("a SEARCH that matches twice is a failure naming both lines") {
  Files f({{"kernel.cu", "a\nx = 1;\nb\nx = 1;\nc\n"}});
  AppliedEdits r = apply_to(f, {block("kernel.cu", "x = 1;\n", "x = 2;\n")});
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures[0].block_index == 0);
  CHECK(r.failures[0].reason.find("match 2 places in kernel.cu (starting at lines 2, 4)") != std::string::npos);
  CHECK(r.failures[0].reason.find("include more of the surrounding lines") != std::string::npos);
  CHECK(r.files.empty());
}

TEST_CASE("overlapping and partial repeats are counted right") {
  Files runs({{"kernel.cu", "a\na\na\na\na\n"}});
  AppliedEdits r = apply_to(runs, {block("kernel.cu", "a\na\n", "b\n")});
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures[0].reason.find("match 4 places in kernel.cu (starting at lines 1, 2, 3, 4)") != std::string::npos);

  // a prefix of the SEARCH repeats just before the real match
  Files f({{"kernel.cu", "x\ny\nx\ny\nx\nz\n"}});
  AppliedEdits one = apply_to(f, {block("kernel.cu", "x\ny\nx\nz\n", "w\n")});
  REQUIRE(one.ok());
  CHECK(one.files.at("kernel.cu") == "x\ny\nw\n");

  // thousands of identical lines: more than ten matches are summarised
  std::string same;
  for (int i = 0; i < 20000; ++i) same += "__syncthreads();\n";
  Files many({{"kernel.cu", same}});
  AppliedEdits lots = apply_to(many, {block("kernel.cu", "__syncthreads();\n__syncthreads();\n", "\n")});
  REQUIRE(lots.failures.size() == 1);
  CHECK(lots.failures[0].reason.find("match more than 10 places") != std::string::npos);
}

TEST_CASE("trailing whitespace is ignored when the exact lines do not match") {
  Files f({{"kernel.cu", "int a;   \n\tint b;\t\nint c;\n"}});
  AppliedEdits r = apply_to(f, {block("kernel.cu", "int a;\n\tint b;\n", "int a2;\n\tint b2;\n")});
  REQUIRE(r.ok());
  CHECK(r.files.at("kernel.cu") == "int a2;\n\tint b2;\nint c;\n");

  // leading whitespace is code: a different indentation does not match
  AppliedEdits indent = apply_to(f, {block("kernel.cu", "    int b;\n", "int b2;\n")});
  REQUIRE(indent.failures.size() == 1);
  CHECK(indent.failures[0].reason.find("in whitespace only") != std::string::npos);
}

TEST_CASE("no match: the reason shows the nearest lines of the file, numbered and bounded") {
  std::string big;
  for (int i = 1; i <= 200; ++i) big += "  line_" + std::to_string(i) + " = compute(" + std::to_string(i) + ");\n";
  Files f({{"kernel.cu", big}});
  AppliedEdits r = apply_to(f, {block("kernel.cu", "  line_120 = compute(120);\n  line_121 = compute(999);\n", "x\n")});
  REQUIRE(r.failures.size() == 1);
  const std::string& why = r.failures[0].reason;
  CHECK(why.find("match nothing in kernel.cu") != std::string::npos);
  CHECK(why.find("The most similar lines of kernel.cu are 120-121") != std::string::npos);
  CHECK(why.find("SEARCH line 2 is the first to differ, from line 121") != std::string::npos);
  CHECK(why.find("   121|   line_121 = compute(121);") != std::string::npos);
  CHECK(why.find("   118|") != std::string::npos);   // two lines of context before
  CHECK(why.find("line_60 ") == std::string::npos);

  // a huge SEARCH still shows at most 30 lines
  std::string search;
  for (int i = 50; i < 150; ++i) search += "  line_" + std::to_string(i) + " = compute(" + std::to_string(i) + ")\n";
  AppliedEdits big_search = apply_to(f, {block("kernel.cu", search, "x\n")});
  REQUIRE(big_search.failures.size() == 1);
  const std::string& shown = big_search.failures[0].reason;
  size_t numbered = 0;
  for (size_t at = shown.find("| "); at != std::string::npos; at = shown.find("| ", at + 1)) ++numbered;
  CHECK(numbered == 30);
  CHECK(shown.find("more lines") != std::string::npos);
}

TEST_CASE("an edit already in the file is pointed out") {
  Files f({{"kernel.cu", "int a = 2;\n"}});
  AppliedEdits r = apply_to(f, {block("kernel.cu", "int a = 1;\n", "int a = 2;\n")});
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures[0].reason.find("REPLACE lines are already in kernel.cu") != std::string::npos);
}

TEST_CASE("a CRLF file stays CRLF, and the final newline state is kept") {
  Files crlf({{"kernel.cu", "int a;\r\nint b;\r\nint c;\r\n"}});
  AppliedEdits r = apply_to(crlf, {block("kernel.cu", "int b;\n", "int b2;\nint b3;\n")});
  REQUIRE(r.ok());
  CHECK(r.files.at("kernel.cu") == "int a;\r\nint b2;\r\nint b3;\r\nint c;\r\n");

  // a CRLF SEARCH (from a CRLF answer built elsewhere) matches an LF file
  Files lf({{"kernel.cu", "int a;\nint b;"}});   // no final newline
  AppliedEdits last = apply_to(lf, {block("kernel.cu", "int b;\r\n", "int b2;\r\n")});
  REQUIRE(last.ok());
  CHECK(last.files.at("kernel.cu") == "int a;\nint b2;");

  AppliedEdits grow = apply_to(lf, {block("kernel.cu", "int b;\n", "int b2;\nint b3;\n")});
  REQUIRE(grow.ok());
  CHECK(grow.files.at("kernel.cu") == "int a;\nint b2;\nint b3;");

  // untouched lines of a mixed file keep their own endings
  Files mixed({{"kernel.cu", "a\r\nb\nc\r\nd\r\n"}});
  AppliedEdits m = apply_to(mixed, {block("kernel.cu", "c\n", "C\n")});
  REQUIRE(m.ok());
  CHECK(m.files.at("kernel.cu") == "a\r\nb\nC\r\nd\r\n");
}

TEST_CASE("tabs and unicode match byte for byte") {
  Files f({{"kernel.cu", "\t// Σ über k — µs\n\tfloat µ = 0;\n"}});
  AppliedEdits r = apply_to(f, {block("kernel.cu", "\tfloat µ = 0;\n", "\tfloat µ = 1; // ✓\n")});
  REQUIRE(r.ok());
  CHECK(r.files.at("kernel.cu") == "\t// Σ über k — µs\n\tfloat µ = 1; // ✓\n");
}

TEST_CASE("an empty SEARCH: a failure on a non-empty file, the content of an empty one") {
  Files f({{"kernel.cu", kKernel}, {"tunables.json", ""}});
  AppliedEdits r = apply_to(f, {block("kernel.cu", "", "int x;\n"), block("tunables.json", "\n", "{\"A\": 1}\n")});
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures[0].path == "kernel.cu");
  CHECK(r.failures[0].reason.find("send the whole file as a fenced block after its path instead") !=
        std::string::npos);
  CHECK(r.files.at("tunables.json") == "{\"A\": 1}\n");
}

TEST_CASE("a whole-file block replaces the file in its own line endings") {
  Files f({{"kernel.cu", "old\r\nfile\r\n"}, {"tunables.json", "{\"A\": 1}"}});
  EditBlock whole = block("kernel.cu", "", "new\nfile\nhere\n");
  whole.whole_file = true;
  EditBlock json = block("tunables.json", "", "{\"A\": 2}\n");
  json.whole_file = true;
  AppliedEdits r = apply_to(f, {whole, json});
  REQUIRE(r.ok());
  CHECK(r.files.at("kernel.cu") == "new\r\nfile\r\nhere\r\n");
  CHECK(r.files.at("tunables.json") == "{\"A\": 2}");   // it had no final newline
}

TEST_CASE("paths: repo-relative accepted; absolute, escaping and non-editable refused, never read") {
  Files f({{"kernel.cu", kKernel}});
  AppliedEdits repo = apply_to(f, {block("kernels/sparse_mla/kernel.cu", "  float s = 0.f;\n", "  float s = 1.f;\n")});
  REQUIRE(repo.ok());
  CHECK(repo.files.count("kernel.cu") == 1);

  f.asked.clear();
  AppliedEdits bad = apply_to(f, {block("kernels/sparse_mla/reference.cu", "a\n", "b\n"), block("/etc/passwd", "a\n", "b\n"),
                               block("../matmul_cpu/kernel.cpp", "a\n", "b\n"), block("kernel.cu/../oracle.cpp", "a\n", "b\n"),
                               block("kernels\\sparse_mla\\kernel.cu", "a\n", "b\n"), block("C:/kernel.cu", "a\n", "b\n")});
  REQUIRE(bad.failures.size() == 6);
  CHECK(bad.failures[0].reason == "kernels/sparse_mla/reference.cu is not editable; editable: kernel.cu, tunables.json");
  CHECK(bad.failures[1].reason.find("absolute path") != std::string::npos);
  CHECK(bad.failures[2].reason.find("'..'") != std::string::npos);
  CHECK(bad.failures[3].reason.find("'..'") != std::string::npos);
  CHECK(bad.failures[4].reason.find("'/'") != std::string::npos);
  CHECK(bad.failures[5].reason.find("absolute path") != std::string::npos);
  CHECK(bad.files.empty());
  CHECK(f.asked.empty());   // a refused path is never even read

  std::string why;
  CHECK(resolve_edit_path("`kernels/sparse_mla//./tunables.json`:", kEditable, "./kernels/sparse_mla/", &why) ==
        std::optional<std::string>("tunables.json"));
  CHECK_FALSE(resolve_edit_path("kernels/sparse_mla", kEditable, kPrefix, &why));
  CHECK_FALSE(resolve_edit_path("other/kernel.cu", kEditable, kPrefix, &why));
}

TEST_CASE("a failed block is skipped; the others still apply and are reported") {
  Files f({{"kernel.cu", "a\nb\nc\n"}});
  AppliedEdits r = apply_to(f, {block("kernel.cu", "a\n", "A\n"), block("kernel.cu", "zzz\n", "Z\n"),
                             block("kernel.cu", "A\nb\n", "A\nB\n")});
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures[0].block_index == 1);
  CHECK(r.files.at("kernel.cu") == "A\nB\nc\n");
  CHECK_FALSE(r.ok());
}

TEST_CASE("a missing file can only be created whole") {
  Files f;
  AppliedEdits r = apply_to(f, {block("kernel.cu", "a\n", "b\n")});
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures[0].reason.find("kernel.cu does not exist") != std::string::npos);
  EditBlock whole = block("kernel.cu", "", "int x;\n");
  whole.whole_file = true;
  AppliedEdits made = apply_to(f, {whole});
  REQUIRE(made.ok());
  CHECK(made.files.at("kernel.cu") == "int x;\n");
}

TEST_CASE("a resulting file over the size limit is refused") {
  Files f({{"kernel.cu", "a\n"}});
  EditLimits limits;
  limits.max_file_bytes = 100;
  AppliedEdits r = apply_to(f, {block("kernel.cu", "a\n", std::string(200, 'x') + "\n")}, limits);
  REQUIRE(r.failures.size() == 1);
  CHECK(r.failures[0].reason.find("over the limit of 100 bytes") != std::string::npos);
  CHECK(r.files.empty());
}

TEST_CASE("parse then apply: a fenced CRLF answer edits an LF file") {
  ParsedEdits p = parse_edit_blocks(
      "IDEA: accumulate twice as fast.\r\n\r\n`kernels/sparse_mla/kernel.cu`\r\n```cuda\r\n<<<<<<< SEARCH\r\n"
      "    s += 1.f;   \r\n=======\r\n    s += 2.f;\r\n>>>>>>> REPLACE\r\n```\r\n");
  REQUIRE(p.problems.empty());
  Files f({{"kernel.cu", kKernel}});
  AppliedEdits r = apply_to(f, p.blocks);
  REQUIRE(r.ok());
  CHECK(r.files.at("kernel.cu").find("    s += 2.f;\n") != std::string::npos);
  CHECK(describe_failures(r, p).empty());
}

TEST_CASE("the feedback names each problem and failure with its nearest lines, within its bound") {
  std::string file;
  for (int i = 1; i <= 100; ++i) file += "  value_" + std::to_string(i) + " = load(" + std::to_string(i) + ");\n";
  Files f({{"kernel.cu", file}});
  ParsedEdits p = parse_edit_blocks(
      "kernel.cu\n<<<<<<< SEARCH\n  value_40 = load(41);\n=======\nx\n>>>>>>> REPLACE\n"
      "reference.cu\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n"
      "kernel.cu\n<<<<<<< SEARCH\nc\n");
  REQUIRE(p.blocks.size() == 2);
  AppliedEdits r = apply_to(f, p.blocks);
  std::string text = describe_failures(r, p);
  CHECK(text.find("Nothing was applied") != std::string::npos);
  CHECK(text.find("line 14: the block for kernel.cu is cut short") != std::string::npos);
  CHECK(text.find("block 1 (answer line 2), kernel.cu: the SEARCH lines match nothing") != std::string::npos);
  CHECK(text.find("    40|   value_40 = load(40);") != std::string::npos);
  CHECK(text.find("block 2 (answer line 8), reference.cu: reference.cu is not editable") != std::string::npos);
  CHECK(text.size() <= 8000);

  // many failures: the text stays within the bound and says how many were left out
  std::vector<EditBlock> many;
  for (int i = 0; i < 60; ++i) many.push_back(block("kernel.cu", "  value_" + std::to_string(i) + " = load(0);\n", "y\n"));
  AppliedEdits lots = apply_to(f, many);
  REQUIRE(lots.failures.size() == 60);
  ParsedEdits none;
  std::string bounded = describe_failures(lots, none, 3000);
  CHECK(bounded.size() <= 3000);
  CHECK(bounded.find("more not shown") != std::string::npos);
  CHECK(bounded.find("block 1, kernel.cu") != std::string::npos);
  CHECK(bounded.find("<<<<<<< SEARCH, the exact current lines") != std::string::npos);
}

TEST_CASE("the feedback is cut on a UTF-8 boundary") {
  AppliedEdits r;
  r.failures.push_back({"kernel.cu", 0, ""});
  std::string u;
  for (int i = 0; i < 600; ++i) u += "Σ";   // two bytes each
  r.failures[0].reason = u;
  ParsedEdits none;
  for (size_t limit : {400u, 401u, 402u, 403u}) {
    std::string text = describe_failures(r, none, limit);
    CHECK(text.size() <= limit);
    // every lead byte of a two-byte sequence is followed by its continuation
    for (size_t i = 0; i < text.size(); ++i)
      if (static_cast<unsigned char>(text[i]) == 0xCE) CHECK((i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0xA3));
  }
}

std::string read_source(const std::string& rel) {
  std::ifstream in(std::string(AR_TEST_SOURCE_DIR) + "/" + rel, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string between(const std::string& text, const std::string& from, const std::string& to) {
  size_t a = text.find(from);
  size_t b = text.find(to, a == std::string::npos ? 0 : a);
  if (a == std::string::npos || b == std::string::npos) return {};
  return text.substr(a, b - a);
}

// context/rules.md shows the model the format; its examples must parse and apply
// to the shipped package, or the model learns a format that fails.
TEST_CASE("the examples in context/rules.md parse and apply to kernels/sparse_mla") {
  std::string rules = read_source("context/rules.md");
  REQUIRE_FALSE(rules.empty());
  Files pkg({{"kernel.cu", read_source("kernels/sparse_mla/kernel.cu")},
             {"tunables.json", read_source("kernels/sparse_mla/tunables.json")}});
  REQUIRE_FALSE(pkg.text["kernel.cu"].empty());

  ParsedEdits a = parse_edit_blocks(between(rules, "Example A", "Example B"));
  REQUIRE(a.problems.empty());
  REQUIRE(a.blocks.size() == 1);
  AppliedEdits ra = apply_to(pkg, a.blocks);
  INFO(describe_failures(ra, a));
  REQUIRE(ra.ok());
  CHECK(ra.files.at("kernel.cu").find("__launch_bounds__(THREADS, 2) ar_stage0") != std::string::npos);

  ParsedEdits b = parse_edit_blocks(between(rules, "Example B", "## What a good proposal"));
  REQUIRE(b.problems.empty());
  REQUIRE(b.blocks.size() == 1);
  CHECK(b.blocks[0].whole_file);
  AppliedEdits rb = apply_to(pkg, b.blocks);
  REQUIRE(rb.ok());
  std::string want = pkg.text["tunables.json"];
  want.replace(want.find("\"KV_STAGES\": 1"), 14, "\"KV_STAGES\": 2");
  CHECK(rb.files.at("tunables.json") == want);   // only the one value differs
}

}  // namespace
}  // namespace ar
