#pragma once
// The context pack (SPEC §5): everything a text agent is told, in one value.
// The LLM agent reads it as one prompt; the command agent as a folder of files;
// `autoresearch context` prints it. One value for all three, so what a human
// inspects is exactly what an agent received.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ar {

struct ContextSection {
  std::string file;    // its name in the pack folder, e.g. "rules.md"
  std::string title;   // heading in the prompt
  std::string text;    // markdown
};

struct ContextPack {
  std::vector<ContextSection> sections;          // in prompt order
  std::map<std::string, std::string> sources;    // package-relative editable path -> current best source
  nlohmann::json facts = nlohmann::json::object();   // machine-readable summary (pack.json)

  const ContextSection* find(const std::string& file) const;
  // The whole pack as one markdown document: sections, then the sources fenced
  // under their paths (the paths an edit must name).
  std::string render() const;
  // The folder form: README.md (the index and the task), one file per section,
  // src/<path> per source, pack.json. The folder is emptied first.
  void write_dir(const std::filesystem::path& dir) const;
  nlohmann::json to_json() const;
};

// The fence language for a source file ("cpp", "cuda", "json", "").
std::string fence_language(const std::string& path);

}  // namespace ar
