#pragma once
// All human output goes through one printer that knows TTY vs pipe: on a TTY a
// live status line redrawn with '\r' (colour unless NO_COLOR or TERM=dumb); on a
// pipe or file one line per event, never a '\r'. Human output goes to stderr;
// machine output (--json) is written to stdout by the commands themselves.
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "autoresearch/util/clock.h"

namespace ar {

enum class Tone { Plain, Good, Bad, Warn, Dim };

class Printer {
 public:
  virtual ~Printer() = default;
  // A finished event, one line ("#12 keep 1.07x (CI 1.05-1.09) BLOCK_M=64 ...").
  virtual void event(const std::string& line, Tone tone = Tone::Plain) = 0;
  // What is happening now ("[it 12 | best 1.31x | 0:14:02] measuring #13 (full, 4/9)").
  // On a TTY redraws one line; elsewhere printed only when it changes phase and at
  // most every few seconds, so logs stay readable.
  virtual void status(const std::string& line) = 0;
  // Removes the status line (before exit, before a multi-line table).
  virtual void clear_status() = 0;
};

// Columns for tables written to `out`: $COLUMNS when it holds a number, else the
// terminal's width (TIOCGWINSZ) when `out` is a terminal, else 100.
size_t output_width(std::FILE* out);

// Status lines off a TTY (a pipe, a file, CI logs): a status is printed when it
// differs from the last one printed and either its phase changed or at least
// kStatusInterval seconds passed since the last one. The phase is the text after
// the last ']' with progress counters ("4/9") removed, so "[it 12 | ...] measuring
// #13 (full, 4/9)" -> "measuring #13 (full, )": a new candidate or a new stage
// prints at once, while ticking counters and the clock in the prefix print at most
// every kStatusInterval seconds.
//
// On a TTY the status line keeps ticking: every `tick_seconds` it is redrawn
// with the clock in its leading "[...]" (H:MM:SS, as in "[#12 | 0:14:02]")
// advanced by the time since the caller set it, so a long measurement does not
// look like a hang. Off a TTY nothing is redrawn.
class TerminalPrinter : public Printer {
 public:
  static constexpr double kStatusInterval = 5.0;  // seconds

  // Decides TTY/colour from the FILE* (isatty), NO_COLOR and TERM. The status
  // line is redrawn in place only on a TTY whose TERM is not "dumb"; colour also
  // needs NO_COLOR unset or empty. `clock` (for tests) defaults to a steady clock.
  // tick_seconds <= 0: no ticker thread (tests call tick()).
  explicit TerminalPrinter(std::FILE* out = stderr, Clock* clock = nullptr, double tick_seconds = 1.0);
  // Ends a status line left on screen with a newline so the shell prompt starts clean.
  ~TerminalPrinter() override;
  TerminalPrinter(const TerminalPrinter&) = delete;
  TerminalPrinter& operator=(const TerminalPrinter&) = delete;

  void event(const std::string& line, Tone tone) override;
  void status(const std::string& line) override;
  void clear_status() override;
  bool is_tty() const { return tty_; }
  bool colour() const { return colour_; }

  // Redraws the status line with its clock advanced (on a TTY; else nothing).
  void tick();

  // The phase of a status line, as the rule above defines it.
  static std::string status_phase(const std::string& line);
  // `line` with the H:MM:SS clock in its leading "[...]" moved on by `seconds`
  // (whole seconds); unchanged when it has none.
  static std::string advance_clock(const std::string& line, double seconds);

 private:
  double now() const;
  void draw_status_locked(const std::string& text);
  void clear_status_locked();
  void tick_loop(double tick_seconds);

  std::FILE* out_;
  Clock* clock_;
  bool tty_;
  bool redraw_;   // '\r' + clear-line redraw: a TTY that is not TERM=dumb
  bool colour_;
  bool status_shown_ = false;
  std::string last_status_;
  std::string last_phase_;
  double last_status_time_ = -1e9;
  double status_set_at_ = 0;   // when the caller last set the status (TTY)
  std::mutex mu_;  // the loop prints from the compile workers and the measuring thread
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread ticker_;         // last: started once everything above is set up
};

// Records lines, for tests.
class RecordingPrinter : public Printer {
 public:
  void event(const std::string& line, Tone) override { events.push_back(line); }
  void status(const std::string& line) override { statuses.push_back(line); }
  void clear_status() override {}
  std::vector<std::string> events, statuses;
};

}  // namespace ar
