#pragma once
// Server-sent events (the WHATWG event-stream format both providers stream in),
// parsed incrementally: bytes arrive in arbitrary pieces, lines end in LF, CRLF
// or CR, comment lines (":...") and unknown fields are ignored, and an event is
// dispatched at the blank line that ends it.
#include <functional>
#include <string>
#include <string_view>

namespace ar {

struct SseEvent {
  std::string event;  // the "event:" field; empty when the stream names none
  std::string data;   // the "data:" lines joined with '\n'
};

class SseParser {
 public:
  using Handler = std::function<void(const SseEvent&)>;

  void feed(std::string_view bytes, const Handler& on_event);
  // End of the stream: a last line without its newline is taken as a line,
  // and an event without its blank line is dispatched.
  void finish(const Handler& on_event);

 private:
  void take_line(std::string_view line, const Handler& on_event);
  void dispatch(const Handler& on_event);

  std::string line_;           // the current, unfinished line
  bool skip_lf_ = false;       // the last byte was CR: a following LF ends no new line
  std::string event_, data_;
  bool has_data_ = false;
};

}  // namespace ar
