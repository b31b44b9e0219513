#include "preprocessed_lines.h"

#include <cctype>
#include <optional>
#include <set>
#include <string_view>

#include "guard_rules.h"

namespace ar::guard_detail {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> components(const fs::path& p) {
  std::vector<std::string> out;
  for (const auto& c : p) {
    std::string s = c.string();
    if (s.empty() || s == "/") continue;
    out.push_back(s);
  }
  return out;
}

bool is_blank(std::string_view s) {
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) return false;
  return true;
}

std::string_view trim_left(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

struct Marker {
  int line = 0;
  std::optional<std::string> file;
  std::vector<int> flags;
  bool has_flag(int f) const {
    for (int x : flags)
      if (x == f) return true;
    return false;
  }
};

// `# 12 "file" 1 3`, `#line 12 "file"`, `#line 12`. `rest` follows the '#'.
std::optional<Marker> parse_marker(std::string_view rest) {
  rest = trim_left(rest);
  if (rest.substr(0, 4) == "line" && rest.size() > 4 && (rest[4] == ' ' || rest[4] == '\t'))
    rest = trim_left(rest.substr(4));
  if (rest.empty() || !std::isdigit(static_cast<unsigned char>(rest[0]))) return std::nullopt;
  Marker m;
  size_t i = 0;
  long line = 0;
  while (i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i]))) {
    line = std::min(line * 10 + (rest[i] - '0'), 1L << 30);
    ++i;
  }
  m.line = static_cast<int>(line);
  rest = trim_left(rest.substr(i));
  if (!rest.empty() && rest[0] == '"') {
    size_t j = 1;
    while (j < rest.size() && rest[j] != '"') j += (rest[j] == '\\' && j + 1 < rest.size()) ? 2 : 1;
    m.file = decode_escapes(std::string(rest.substr(1, j - 1)));
    rest = trim_left(rest.substr(std::min(j + 1, rest.size())));
  }
  while (!rest.empty() && std::isdigit(static_cast<unsigned char>(rest[0]))) {
    m.flags.push_back(rest[0] - '0');
    rest = trim_left(rest.substr(1));
  }
  if (!is_blank(rest)) return std::nullopt;
  return m;
}

bool is_pseudo_file(const std::string& name) { return !name.empty() && name[0] == '<'; }

bool is_device_path(const std::string& name) {
  return name.rfind("/proc/", 0) == 0 || name.rfind("/dev/", 0) == 0;
}

}  // namespace

EditableFiles::EditableFiles(const std::vector<fs::path>& files) {
  for (const auto& f : files) {
    Entry e;
    e.path = f;
    std::error_code ec;
    fs::path abs = f.is_absolute() ? f : fs::absolute(f, ec);
    e.lexical = abs.lexically_normal();
    e.canonical = fs::weakly_canonical(abs, ec);
    if (ec) e.canonical = e.lexical;
    e.parts = components(e.lexical);
    e.display = f.filename().string();
    entries_.push_back(std::move(e));
  }
}

int EditableFiles::find(const std::string& marker_name) const {
  auto it = cache_.find(marker_name);
  if (it != cache_.end()) return it->second;
  int index = find_uncached(marker_name);
  cache_.emplace(marker_name, index);
  return index;
}

int EditableFiles::find_uncached(const std::string& marker_name) const {
  if (marker_name.empty() || is_pseudo_file(marker_name)) return -1;
  auto same = [&](const fs::path& p) {
    for (size_t i = 0; i < entries_.size(); ++i)
      if (p == entries_[i].lexical || p == entries_[i].canonical) return static_cast<int>(i);
    return -1;
  };
  fs::path p(marker_name);
  std::error_code ec;
  fs::path abs = p.is_absolute() ? p : fs::current_path(ec) / p;
  if (int i = same(abs.lexically_normal()); i >= 0) return i;
  fs::path canonical = fs::weakly_canonical(abs, ec);
  if (!ec)
    if (int i = same(canonical); i >= 0) return i;
  if (p.is_absolute()) return -1;
  // A relative name is relative to wherever the compiler ran, which we do not
  // know: match it as a suffix of an editable path. Leading ".." only says how
  // far up the compiler went, so it is dropped. Matching too much only means
  // scanning more lines, which is the safe side.
  std::vector<std::string> tail;
  for (const auto& c : components(p.lexically_normal()))
    if (!(tail.empty() && (c == ".." || c == "."))) tail.push_back(c);
  if (tail.empty()) return -1;
  for (size_t i = 0; i < entries_.size(); ++i) {
    const auto& parts = entries_[i].parts;
    if (parts.size() >= tail.size() && std::equal(tail.rbegin(), tail.rend(), parts.rbegin()))
      return static_cast<int>(i);
  }
  return -1;
}

SplitSource split_preprocessed(const std::string& text, const EditableFiles& files) {
  SplitSource out;
  out.entered.assign(files.size(), false);
  int cur = -1;               // editable index of the current file, or -1
  std::string cur_name;
  int cur_line = 1;
  bool cur_has_content = false;
  std::set<std::string> reported;
  // Names a #line directive gave an editable file: its code keeps counting as
  // editable, and includes that return to the new name return to the editable file.
  // Their line numbers are made up too; `offset` maps them back to the file's own.
  struct Renamed {
    int index;
    int offset;
  };
  std::map<std::string, Renamed> renamed;
  int line_offset = 0;
  // A flagless switch from an editable file into <built-in> is let through as a
  // prologue (see below) on the understanding that the prologue leads back to that
  // same file, as a compiler's always does. Any other way out of the pseudo-files
  // into a real file is a #line that hides what follows (`#line 0 "<built-in>"`
  // then `#line 1 "/usr/include/stdio.h"`): reported on the editable file's line.
  struct PseudoOrigin {
    int index;          // the editable file that switched into the pseudo-files
    std::string name;   // its name as the marker gave it
    int line;           // its line that switched
    int marker_line;    // the line number the switch gave the pseudo-file
  };
  std::optional<PseudoOrigin> origin;

  auto where = [&](int line) { return files.display_name(cur) + ":" + std::to_string(line); };
  auto enter = [&](const std::string& name) {
    cur_name = name;
    auto r = renamed.find(name);
    cur = r != renamed.end() ? r->second.index : files.find(name);
    line_offset = r != renamed.end() ? r->second.offset : 0;
    cur_has_content = false;
    if (cur >= 0) out.entered[cur] = true;
  };

  size_t pos = 0;
  while (pos <= text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string_view raw(text.data() + pos, eol - pos);
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    pos = eol + 1;
    std::string_view line = trim_left(raw);

    if (!line.empty() && line[0] == '#') {
      if (auto m = parse_marker(line.substr(1))) {
        out.any_marker = true;
        if (m->file && *m->file != cur_name) {
          bool push_or_pop = m->has_flag(1) || m->has_flag(2);
          // A flagless marker that renames the current file is a #line directive.
          // Not so the prologue's switch to <built-in> (before any code), nor line
          // 0 of a next translation unit when outputs are concatenated.
          bool prologue = (m->line == 0 || !cur_has_content) &&
                          (is_pseudo_file(*m->file) || (m->line == 0 && files.find(*m->file) >= 0));
          bool renames_editable = cur >= 0 && !push_or_pop && !prologue;
          if (renames_editable) {
            out.findings.push_back({kRuleLineDirective, where(cur_line), std::string(line)});
            // The directive took this line; the code after it is on the next one.
            line_offset = cur_line + 1 - m->line;
            renamed.emplace(*m->file, Renamed{cur, line_offset});
            cur_name = *m->file;
          } else {
            if (origin && is_pseudo_file(cur_name) && !is_pseudo_file(*m->file) && !m->has_flag(1)) {
              if (*m->file != origin->name && files.find(*m->file) != origin->index) {
                int at = origin->line + 1 + (cur_line - origin->marker_line);
                out.findings.push_back({kRuleLineDirective, files.display_name(origin->index) + ":" +
                                                                std::to_string(at),
                                        std::string(line)});
              }
              origin.reset();
            }
            if (prologue && !push_or_pop && cur >= 0 && !is_pseudo_file(cur_name) && is_pseudo_file(*m->file))
              origin = PseudoOrigin{cur, cur_name, cur_line, m->line};
            if (m->has_flag(1) && is_device_path(*m->file) && reported.insert(*m->file).second)
              out.findings.push_back({kRuleIo, cur >= 0 ? where(cur_line) : *m->file,
                                      "#include \"" + *m->file + "\""});
            enter(*m->file);
          }
        }
        cur_line = m->line + line_offset;
        continue;
      }
      if (cur >= 0) {
        std::string_view d = trim_left(line.substr(1));
        if (d.substr(0, 6) == "pragma" && (d.size() == 6 || std::isspace(static_cast<unsigned char>(d[6]))))
          out.pragmas.push_back({cur, cur_line, std::string(trim_left(d.substr(6)))});
      }
      ++cur_line;
      continue;
    }
    if (cur >= 0) {
      out.code.push_back({cur, cur_line, std::string(raw)});
      if (!is_blank(raw)) cur_has_content = true;
    } else if (is_pseudo_file(cur_name) && !is_blank(raw) && out.any_marker &&
               reported.insert("pseudo:" + cur_name).second) {
      // Compilers print no code under <built-in> or <command-line>; code there was
      // renamed into it to slip past the scan.
      out.findings.push_back({kRuleLineDirective, cur_name, std::string(trim_left(raw)).substr(0, 60)});
    }
    ++cur_line;
    if (eol == text.size()) break;
  }
  return out;
}

}  // namespace ar::guard_detail
