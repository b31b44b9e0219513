#include "autoresearch/ui/printer.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ar {

namespace {

constexpr const char* kClearLine = "\r\x1b[K";
constexpr const char* kReset = "\x1b[0m";

const char* tone_colour(Tone tone) {
  switch (tone) {
    case Tone::Good: return "\x1b[32m";
    case Tone::Bad: return "\x1b[31m";
    case Tone::Warn: return "\x1b[33m";
    case Tone::Dim: return "\x1b[2m";
    case Tone::Plain: break;
  }
  return nullptr;
}

bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && v[0] != '\0';  // no-color.org: an empty NO_COLOR does not count
}

// Only this printer may move the cursor: a '\r' inside a caller's text would undo
// the one-line-per-event promise off a TTY, and a '\n' would break the redraw on one.
std::string sanitize(const std::string& s, bool newlines_to_spaces) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\r') continue;
    out += (c == '\n' && newlines_to_spaces) ? ' ' : c;
  }
  return out;
}

// A status wider than the terminal wraps, and '\r' then redraws only its last row.
std::string fit_columns(const std::string& s, int columns) {
  if (columns <= 1) return s;
  size_t limit = static_cast<size_t>(columns - 1), kept = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;  // inside a code point
    if (kept == limit) return s.substr(0, i);
    ++kept;
  }
  return s;
}

int terminal_columns(std::FILE* out) {
  struct winsize ws {};
  if (::ioctl(::fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 0;
}

bool is_progress_counter(const std::string& s, size_t i, size_t* end) {
  size_t j = i;
  while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
  if (j == i || j >= s.size() || s[j] != '/') return false;
  size_t k = j + 1;
  while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
  if (k == j + 1) return false;
  *end = k;
  return true;
}

}  // namespace

size_t output_width(std::FILE* out) {
  if (const char* c = std::getenv("COLUMNS"); c && *c) {
    char* end = nullptr;
    long n = std::strtol(c, &end, 10);
    if (*end == '\0' && n >= 20 && n <= 10000) return static_cast<size_t>(n);
  }
  if (::isatty(::fileno(out)) == 1) {
    if (int cols = terminal_columns(out); cols > 0) return static_cast<size_t>(cols);
  }
  return 100;
}

TerminalPrinter::TerminalPrinter(std::FILE* out, Clock* clock, double tick_seconds)
    : out_(out), clock_(clock), tty_(::isatty(::fileno(out)) == 1) {
  const char* term = std::getenv("TERM");
  const bool dumb = term != nullptr && std::strcmp(term, "dumb") == 0;
  redraw_ = tty_ && !dumb;
  colour_ = redraw_ && !env_set("NO_COLOR");
  if (redraw_ && tick_seconds > 0) ticker_ = std::thread([this, tick_seconds] { tick_loop(tick_seconds); });
}

TerminalPrinter::~TerminalPrinter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  std::lock_guard<std::mutex> lock(mu_);
  if (status_shown_) {
    std::fputc('\n', out_);
    std::fflush(out_);
  }
}

void TerminalPrinter::tick_loop(double tick_seconds) {
  const auto period = std::chrono::duration<double>(tick_seconds);
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock, period, [this] { return stopping_; })) {
    lock.unlock();
    tick();
    lock.lock();
  }
}

void TerminalPrinter::tick() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!redraw_ || !status_shown_) return;
  draw_status_locked(advance_clock(last_status_, now() - status_set_at_));
  std::fflush(out_);
}

std::string TerminalPrinter::advance_clock(const std::string& line, double seconds) {
  if (line.empty() || line[0] != '[' || seconds < 1) return line;
  size_t close = line.find(']');
  if (close == std::string::npos) return line;
  // The last H:MM:SS inside the brackets.
  for (size_t end = close; end >= 7; --end) {
    size_t s2 = end - 2, c2 = end - 3, m2 = end - 5, c1 = end - 6;
    auto digit = [&](size_t i) { return std::isdigit(static_cast<unsigned char>(line[i])) != 0; };
    if (!(digit(s2) && digit(s2 + 1) && line[c2] == ':' && digit(m2) && digit(m2 + 1) && line[c1] == ':')) continue;
    if (end < close && digit(end)) continue;
    size_t h = c1;
    while (h > 1 && digit(h - 1)) --h;
    if (h == c1) continue;
    long total = std::stol(line.substr(h, c1 - h)) * 3600 + std::stol(line.substr(m2, 2)) * 60 +
                 std::stol(line.substr(s2, 2)) + static_cast<long>(seconds);
    char clock[32];
    std::snprintf(clock, sizeof clock, "%ld:%02ld:%02ld", total / 3600, (total / 60) % 60, total % 60);
    return line.substr(0, h) + clock + line.substr(end);
  }
  return line;
}

double TerminalPrinter::now() const {
  if (clock_) return clock_->now_seconds();
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

std::string TerminalPrinter::status_phase(const std::string& line) {
  size_t bracket = line.rfind(']');
  std::string tail = bracket == std::string::npos ? line : line.substr(bracket + 1);
  std::string phase;
  for (size_t i = 0; i < tail.size();) {
    size_t end;
    if ((i == 0 || !std::isdigit(static_cast<unsigned char>(tail[i - 1]))) &&
        is_progress_counter(tail, i, &end)) {
      i = end;
      continue;
    }
    phase += tail[i++];
  }
  size_t first = phase.find_first_not_of(' ');
  size_t last = phase.find_last_not_of(' ');
  return first == std::string::npos ? "" : phase.substr(first, last - first + 1);
}

void TerminalPrinter::draw_status_locked(const std::string& text) {
  std::fputs(kClearLine, out_);
  std::fputs(fit_columns(text, terminal_columns(out_)).c_str(), out_);
  status_shown_ = true;
}

void TerminalPrinter::clear_status_locked() {
  if (!status_shown_) return;
  std::fputs(kClearLine, out_);
  status_shown_ = false;
}

void TerminalPrinter::event(const std::string& line, Tone tone) {
  std::lock_guard<std::mutex> lock(mu_);
  const bool had_status = status_shown_;
  if (redraw_) clear_status_locked();
  const char* colour = colour_ ? tone_colour(tone) : nullptr;
  std::string text = sanitize(line, false);
  if (colour)
    std::fprintf(out_, "%s%s%s\n", colour, text.c_str(), kReset);
  else
    std::fprintf(out_, "%s\n", text.c_str());
  // The event scrolls up; the live status stays on the bottom line.
  if (redraw_ && had_status) draw_status_locked(advance_clock(last_status_, now() - status_set_at_));
  std::fflush(out_);
}

void TerminalPrinter::status(const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string text = sanitize(line, true);
  if (redraw_) {
    last_status_ = text;
    status_set_at_ = now();
    draw_status_locked(text);
    std::fflush(out_);
    return;
  }
  // Off a TTY every status is a line of its own: print only what a reader of the
  // log needs (see the rule in printer.h).
  if (text == last_status_) return;
  const std::string phase = status_phase(text);
  const double t = now();
  if (phase == last_phase_ && t - last_status_time_ < kStatusInterval) return;
  std::fprintf(out_, "%s\n", text.c_str());
  std::fflush(out_);
  last_status_ = text;
  last_phase_ = phase;
  last_status_time_ = t;
}

void TerminalPrinter::clear_status() {
  std::lock_guard<std::mutex> lock(mu_);
  if (redraw_) clear_status_locked();
  std::fflush(out_);
}

}  // namespace ar
