#pragma once
// Edits as a text agent (an LLM) sends them back, parsed and applied without
// touching the disk: the caller reads the current files and writes the results.
//
// The format (context/rules.md shows the model one example):
//
//     kernel.cu                       <- the path, alone on its line (package- or repo-relative)
//     ```cuda                         <- optional fence, 3+ backticks or tildes, any tag
//     <<<<<<< SEARCH
//     the exact current lines
//     =======
//     the new lines
//     >>>>>>> REPLACE
//     ```
//
// or a whole file: its path on one line, then a fenced block holding the new file.
//
// Parsing rules, chosen so that no input is ambiguous or crashes:
// - Marker lines are `<<<<<<< SEARCH`, `=======`, `>>>>>>> REPLACE` with 5 to 9
//   of their character (as aider accepts), surrounding whitespace allowed.
// - The divider is the FIRST `=======` line after SEARCH. A REPLACE section that
//   contains another marker line, or a SEARCH section that contains a SEARCH
//   marker, is malformed: code that itself holds such lines cannot be edited
//   with a block that spans them.
// - The path is the nearest non-blank, non-fence line among the four lines before
//   the SEARCH marker. A block that follows another block with nothing but
//   blank or fence lines between them continues the same file; any other block
//   without a path line is a problem.
// - A fence right after a path-looking line (no spaces, has a '.' or '/') that
//   holds no SEARCH marker is a whole-file block. Other fenced text is prose.
// - Everything else is prose and ignored. A block cut short (a truncated answer)
//   is a problem, never a partial edit.
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ar {

struct EditLimits {
  size_t max_answer_bytes = 512 * 1024;   // a larger answer is refused unparsed
  size_t max_file_bytes = 1024 * 1024;    // a larger resulting file is refused
};

struct EditBlock {
  std::string path;          // as written, decorations (backticks, **, ':') stripped
  bool whole_file = false;   // replace: the whole new file; search: unused
  std::string search, replace;   // LF line endings, every line ending in '\n'
  int answer_line = 0;       // 1-based line of the SEARCH marker or the opening fence
};

struct ParsedEdits {
  std::vector<EditBlock> blocks;
  // Malformed input, one sentence each naming the answer line. When this is not
  // empty the answer as a whole is malformed: apply none of it.
  std::vector<std::string> problems;
};

ParsedEdits parse_edit_blocks(const std::string& answer, const EditLimits& limits = {});

struct EditFailure {
  std::string path;
  int block_index = 0;       // 0-based, into the blocks given to apply_edit_blocks
  std::string reason;        // for a non-match: the nearest lines of the file, numbered
};

struct AppliedEdits {
  // Package-relative path -> new full content, only for files whose content changed.
  std::map<std::string, std::string> files;
  std::vector<EditFailure> failures;
  bool ok() const { return failures.empty(); }
};

// The package-relative form of a path an agent wrote, or nullopt with the reason
// (absolute, escapes with "..", or not one of the editable files).
std::optional<std::string> resolve_edit_path(const std::string& written, const std::vector<std::string>& editable,
                                             const std::string& package_prefix, std::string* why = nullptr);

// Applies the blocks in order; a later block sees the earlier blocks' result. A
// block that fails is skipped and reported; the others still apply, so one reply
// can report every failure at once. Matching is by whole lines: exact first, then
// ignoring trailing whitespace; a file keeps its own line endings and its final
// newline state. `current(path)` gives a package-relative file's text, or nullopt
// if it does not exist; `editable` lists the package-relative editable files (the
// tunables file included); `package_prefix` is the repo-relative package folder
// ("kernels/sparse_mla"), so that repo-relative paths are accepted.
AppliedEdits apply_edit_blocks(const std::vector<EditBlock>& blocks,
                               const std::function<std::optional<std::string>(const std::string&)>& current,
                               const std::vector<std::string>& editable, const std::string& package_prefix,
                               const EditLimits& limits = {});

// The reply for the model when the answer was malformed or an edit failed, at
// most max_chars bytes (cut on a UTF-8 boundary). It says that nothing was
// applied: the caller must apply none of an answer with problems or failures.
// Empty when there is nothing to report.
std::string describe_failures(const AppliedEdits& applied, const ParsedEdits& parsed, size_t max_chars = 8000);

}  // namespace ar
