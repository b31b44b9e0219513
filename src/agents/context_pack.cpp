#include "autoresearch/agents/context_pack.h"

#include <fmt/format.h>

#include "autoresearch/util/fs.h"

namespace fs = std::filesystem;

namespace ar {

const ContextSection* ContextPack::find(const std::string& file) const {
  for (const auto& s : sections)
    if (s.file == file) return &s;
  return nullptr;
}

std::string fence_language(const std::string& path) {
  auto ext = fs::path(path).extension().string();
  if (ext == ".cu" || ext == ".cuh") return "cuda";
  if (ext == ".cpp" || ext == ".cc" || ext == ".h" || ext == ".hpp") return "cpp";
  if (ext == ".json") return "json";
  if (ext == ".py") return "python";
  return "";
}

// A fence longer than any backtick run inside the text, so a source that holds
// ``` (in a comment, a raw string) cannot close it early.
static std::string fence_for(const std::string& text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<size_t>(3, longest + 1), '`');
}

std::string ContextPack::render() const {
  std::string out;
  for (const auto& s : sections) {
    if (s.text.empty()) continue;
    out += "# " + s.title + "\n\n" + s.text;
    if (out.back() != '\n') out += '\n';
    out += '\n';
  }
  if (!sources.empty()) {
    out += "# The current best source (edit these files)\n\n";
    for (const auto& [path, text] : sources) {
      std::string fence = fence_for(text);
      out += path + "\n" + fence + fence_language(path) + "\n" + text;
      if (!text.empty() && text.back() != '\n') out += '\n';
      out += fence + "\n\n";
    }
  }
  return out;
}

void ContextPack::write_dir(const fs::path& dir) const {
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir / "src");
  std::string index = "# Context pack\n\nWhat the autoresearch driver tells an agent, one file per part:\n\n";
  for (const auto& s : sections) {
    if (s.text.empty()) continue;
    write_file_atomic(dir / s.file, "# " + s.title + "\n\n" + s.text);
    index += fmt::format("- `{}`: {}\n", s.file, s.title);
  }
  for (const auto& [path, text] : sources) {
    write_file_atomic(dir / "src" / path, text);
    index += fmt::format("- `src/{}`: the current best `{}` (edit the one in the worktree, not this copy)\n", path,
                         path);
  }
  index += "- `pack.json`: the same facts for programs\n";
  if (const ContextSection* task = find("task.md")) index += "\n" + task->text;
  write_file_atomic(dir / "README.md", index);
  write_file_atomic(dir / "pack.json", to_json().dump(2) + "\n");
}

nlohmann::json ContextPack::to_json() const {
  nlohmann::json j = facts;
  j["sections"] = nlohmann::json::array();
  for (const auto& s : sections) j["sections"].push_back({{"file", s.file}, {"title", s.title}, {"text", s.text}});
  j["sources"] = sources;
  return j;
}

}  // namespace ar
