#pragma once
// Splits the compiler's preprocessed output (`-E`, line markers kept) into the
// lines that belong to editable files. Line markers are how we know where a line
// came from: `# 12 "/abs/kernel.cu" 2` (GCC, nvcc) and `#line 12 "kernel.cu"`.
// The preprocessor prints a file's name as it was reached (relative, absolute,
// through `..` or a symlink), so names are compared after normalisation.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "autoresearch/guard/guard.h"
#include "cpp_lexer.h"

namespace ar::guard_detail {

class EditableFiles {
 public:
  explicit EditableFiles(const std::vector<std::filesystem::path>& files);
  // Index of the editable file a marker names, or -1.
  int find(const std::string& marker_name) const;
  // What findings call the file: its name without the folder ("kernel.cu").
  const std::string& display_name(int index) const { return entries_[index].display; }
  const std::filesystem::path& path(int index) const { return entries_[index].path; }
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::filesystem::path path;       // as given
    std::filesystem::path lexical;    // absolute, lexically normal
    std::filesystem::path canonical;  // symlinks resolved where the file exists
    std::vector<std::string> parts;   // components of `lexical`
    std::string display;
  };
  int find_uncached(const std::string& marker_name) const;
  std::vector<Entry> entries_;
  mutable std::map<std::string, int> cache_;  // markers repeat thousands of times
};

struct SplitSource {
  std::vector<SourceLine> code;      // lines of editable files, directives removed
  std::vector<SourceLine> pragmas;   // `#pragma` lines of editable files; text is what follows `pragma`
  std::vector<bool> entered;         // per editable file: the output reached it at least once
  std::vector<GuardFinding> findings;
  bool any_marker = false;
};

SplitSource split_preprocessed(const std::string& text, const EditableFiles& files);

// `#line` and `# N "file"` directives in an editable file's own text. Such a
// directive makes the preprocessor attribute the code after it to another file
// (a system header, say), which would hide it from the scan; kernel code never
// needs one. Reads through backslash-newlines, comments and the `%:` digraph.
std::vector<GuardFinding> find_line_directives(const std::string& raw_source, const std::string& display_name);

}  // namespace ar::guard_detail
