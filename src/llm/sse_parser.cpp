#include "sse_parser.h"

namespace ar {

void SseParser::feed(std::string_view bytes, const Handler& on_event) {
  for (char c : bytes) {
    if (skip_lf_) {
      skip_lf_ = false;
      if (c == '\n') continue;
    }
    if (c == '\r' || c == '\n') {
      skip_lf_ = (c == '\r');
      take_line(line_, on_event);
      line_.clear();
    } else {
      line_.push_back(c);
    }
  }
}

void SseParser::finish(const Handler& on_event) {
  if (!line_.empty()) {
    take_line(line_, on_event);
    line_.clear();
  }
  dispatch(on_event);
}

void SseParser::take_line(std::string_view line, const Handler& on_event) {
  if (line.empty()) {
    dispatch(on_event);
    return;
  }
  if (line.front() == ':') return;  // a comment (OpenRouter's ": OPENROUTER PROCESSING")
  std::string_view field = line, value;
  if (size_t colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "event") {
    event_ = std::string(value);
  } else if (field == "data") {
    if (has_data_) data_.push_back('\n');
    data_.append(value);
    has_data_ = true;
  }
  // "id", "retry" and unknown fields mean nothing to a one-shot answer.
}

void SseParser::dispatch(const Handler& on_event) {
  if (has_data_) on_event(SseEvent{event_, data_});
  event_.clear();
  data_.clear();
  has_data_ = false;
}

}  // namespace ar
