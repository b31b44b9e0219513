#pragma once
// Small text helpers shared by the edit-block parser and applier.
#include <string>
#include <string_view>

namespace ar::detail {

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

inline std::string_view trim_right(std::string_view s) {
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return trim_right(s);
}

// The longest prefix of s of at most max_bytes that does not end inside a UTF-8
// sequence, so that text cut for the model stays valid UTF-8.
inline std::string_view utf8_prefix(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  size_t n = max_bytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

// s cut to max_bytes with a visible mark when something was cut.
inline std::string clip(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  return std::string(utf8_prefix(s, max_bytes)) + " [...]";
}

// "**`kernels/x/kernel.cu`**:" or "### kernel.cu" -> the bare path text.
inline std::string strip_decorations(std::string_view line) {
  std::string_view t = trim(line);
  for (int pass = 0; pass < 3; ++pass) {
    while (!t.empty() && t.back() == ':') t.remove_suffix(1);
    while (!t.empty() && t.front() == '#') t.remove_prefix(1);
    while (!t.empty() && (t.front() == '`' || t.front() == '*')) t.remove_prefix(1);
    while (!t.empty() && (t.back() == '`' || t.back() == '*')) t.remove_suffix(1);
    t = trim(t);
  }
  return std::string(t);
}

}  // namespace ar::detail
