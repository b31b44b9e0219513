#pragma once
// Column layout for the human tables (log, bench). Widths count code points, not
// bytes: ideas carry "→" and units carry "µ", and byte-width padding would skew
// every column after them. Colour is applied after padding, so escapes never
// count towards a width.
#include <string>
#include <vector>

namespace ar::detail {

// Terminal columns a UTF-8 string takes (one per code point; no wide glyphs in our text).
size_t display_width(const std::string& s);
// Cuts to at most `width` columns, ending in "…" when something was cut.
std::string truncate_to_width(const std::string& s, size_t width);
enum class Align { Left, Right };
std::string pad(const std::string& s, size_t width, Align align);
// One line of text: newlines and tabs become spaces (diffs and compiler errors
// end up in reasons; a table row must stay one row); other control characters
// are dropped.
std::string one_line(const std::string& s);

}  // namespace ar::detail
