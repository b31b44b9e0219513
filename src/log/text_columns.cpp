#include "text_columns.h"

namespace ar::detail {

namespace {
bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }
}  // namespace

size_t display_width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += is_continuation(c) ? 0 : 1;
  return n;
}

std::string truncate_to_width(const std::string& s, size_t width) {
  if (display_width(s) <= width) return s;
  if (width == 0) return "";
  // Keep width-1 code points and the ellipsis; never split a multi-byte sequence.
  size_t kept = 0, i = 0;
  for (; i < s.size(); ++i) {
    if (!is_continuation(static_cast<unsigned char>(s[i]))) {
      if (kept == width - 1) break;
      ++kept;
    }
  }
  return s.substr(0, i) + "…";
}

std::string pad(const std::string& s, size_t width, Align align) {
  size_t w = display_width(s);
  if (w >= width) return s;
  std::string fill(width - w, ' ');
  return align == Align::Left ? s + fill : fill + s;
}

std::string one_line(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\n' || c == '\r' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      // Dropped: an agent's idea must not be able to send escapes to the terminal.
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace ar::detail
