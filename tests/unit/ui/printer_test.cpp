#include "autoresearch/ui/printer.h"

#include <fcntl.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "catch.h"

namespace {

// Defined inline so the test needs nothing from util's clock.cpp.
class TestClock : public ar::Clock {
 public:
  double now_seconds() override { return t; }
  std::string now_iso8601() override { return "2026-01-01T00:00:00Z"; }
  double t = 0;
};

std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  return out;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("off a TTY the printer writes plain lines and never a carriage return") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  TestClock clock;
  {
    ar::TerminalPrinter printer(f, &clock);
    CHECK_FALSE(printer.is_tty());
    CHECK_FALSE(printer.colour());
    printer.status("[it 1 | best 1.00x | 0:00:01] building #1");
    printer.event("#1 keep 1.07x (CI 1.05-1.09)", ar::Tone::Good);
    printer.status("[it 2 | best 1.07x | 0:00:02] measuring #2 (full, 1/9)");
    printer.event("carriage\rreturn in the caller's text", ar::Tone::Bad);
    printer.clear_status();
  }
  std::string out = contents(f);
  std::fclose(f);
  CHECK(out.find('\r') == std::string::npos);
  CHECK(out.find('\x1b') == std::string::npos);
  CHECK(out.find("#1 keep 1.07x (CI 1.05-1.09)\n") != std::string::npos);
  CHECK(out.find("building #1\n") != std::string::npos);
}

TEST_CASE("off a TTY a status prints on a new phase or after the interval") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  TestClock clock;
  ar::TerminalPrinter printer(f, &clock);

  printer.status("[it 2 | 0:00:00] measuring #2 (full, 1/9)");  // printed: first
  clock.t = 1;
  printer.status("[it 2 | 0:00:01] measuring #2 (full, 2/9)");  // same phase, too soon
  clock.t = 2;
  printer.status("[it 2 | 0:00:02] measuring #2 (confirm, 1/9)");  // new phase: printed
  clock.t = 3;
  printer.status("[it 2 | 0:00:03] measuring #2 (confirm, 2/9)");  // too soon
  clock.t = 8;
  printer.status("[it 2 | 0:00:08] measuring #2 (confirm, 5/9)");  // interval passed
  printer.status("[it 2 | 0:00:08] measuring #2 (confirm, 5/9)");  // identical: never
  clock.t = 8.5;
  printer.status("[it 3 | 0:00:08] building #3");  // new phase

  std::string out = contents(f);
  std::fclose(f);
  CHECK(count(out, "\n") == 4);
  CHECK(out.find("(full, 1/9)") != std::string::npos);
  CHECK(out.find("(full, 2/9)") == std::string::npos);
  CHECK(out.find("(confirm, 1/9)") != std::string::npos);
  CHECK(out.find("(confirm, 2/9)") == std::string::npos);
  CHECK(out.find("(confirm, 5/9)") != std::string::npos);
  CHECK(out.find("building #3") != std::string::npos);
}

TEST_CASE("the status phase ignores the prefix and progress counters") {
  using P = ar::TerminalPrinter;
  CHECK(P::status_phase("[it 12 | best 1.31x | 0:14:02] measuring #13 (full, 4/9)") ==
        "measuring #13 (full, )");
  CHECK(P::status_phase("[it 12] measuring #13 (full, 5/9)") ==
        P::status_phase("[it 13] measuring #13 (full, 4/9)"));
  CHECK(P::status_phase("[it 12] measuring #13") != P::status_phase("[it 12] measuring #14"));
  CHECK(P::status_phase("no brackets 3/4") == "no brackets");
}

TEST_CASE("the recording printer keeps what it was given") {
  ar::RecordingPrinter p;
  p.event("a", ar::Tone::Plain);
  p.status("b");
  CHECK(p.events.size() == 1);
  CHECK(p.statuses.at(0) == "b");
}

namespace {

// A pseudo-terminal: the printer writes to the slave as to a real terminal,
// the test reads what a user would see from the master.
struct Pty {
  int master = -1, slave = -1;
  std::FILE* out = nullptr;
  Pty() {
    ::setenv("TERM", "xterm", 1);
    REQUIRE(::openpty(&master, &slave, nullptr, nullptr, nullptr) == 0);
    ::fcntl(master, F_SETFL, ::fcntl(master, F_GETFL) | O_NONBLOCK);
    out = ::fdopen(slave, "w");
    REQUIRE(out != nullptr);
  }
  ~Pty() {
    std::fclose(out);
    ::close(master);
  }
  std::string read_all() {
    std::string s;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(master, buf, sizeof buf)) > 0) s.append(buf, static_cast<size_t>(n));
    return s;
  }
};

}  // namespace

TEST_CASE("advance_clock moves the clock in the status prefix on, and nothing else") {
  using P = ar::TerminalPrinter;
  CHECK(P::advance_clock("[#12 | best 1.310x | kept 2 | 0:14:02] measuring #13", 3) ==
        "[#12 | best 1.310x | kept 2 | 0:14:05] measuring #13");
  CHECK(P::advance_clock("[#1 | 0:59:58] x", 2.7) == "[#1 | 1:00:00] x");
  CHECK(P::advance_clock("[#1 | 12:00:00] x", 3600) == "[#1 | 13:00:00] x");
  CHECK(P::advance_clock("[#1 | 0:00:05] x", 0.4) == "[#1 | 0:00:05] x");    // under a second
  CHECK(P::advance_clock("no prefix 0:00:05", 10) == "no prefix 0:00:05");
  CHECK(P::advance_clock("[#1 | best 1.2x] x 0:00:05", 10) == "[#1 | best 1.2x] x 0:00:05");
}

TEST_CASE("on a terminal the status clock ticks while nothing else is printed") {
  Pty pty;
  TestClock clock;
  ar::TerminalPrinter printer(pty.out, &clock, 0);   // no thread: ticks by hand
  REQUIRE(printer.is_tty());
  printer.status("[#3 | best 1.000x | kept 0 | 0:00:05] measuring #4");
  pty.read_all();
  clock.t = 3;
  printer.tick();
  std::string shown = pty.read_all();
  CHECK(shown.find("0:00:08] measuring #4") != std::string::npos);
  CHECK(shown.find('\r') != std::string::npos);
  // An event keeps the ticked clock on the redrawn status line.
  clock.t = 4;
  printer.event("#3 discard", ar::Tone::Plain);
  CHECK(pty.read_all().find("0:00:09] measuring #4") != std::string::npos);
}

TEST_CASE("on a terminal a ticker thread redraws the status line every period") {
  Pty pty;
  ar::TerminalPrinter printer(pty.out, nullptr, 0.05);
  printer.status("[#1 | 0:00:05] building");
  std::string seen;
  for (int i = 0; i < 60 && seen.find("0:00:06] building") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    seen += pty.read_all();
  }
  CHECK(seen.find("0:00:06] building") != std::string::npos);
}

TEST_CASE("off a terminal nothing ticks") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  TestClock clock;
  {
    ar::TerminalPrinter printer(f, &clock, 0.01);
    printer.status("[#1 | 0:00:05] building");
    clock.t = 10;
    printer.tick();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::string out = contents(f);
  std::fclose(f);
  CHECK(out == "[#1 | 0:00:05] building\n");
}

TEST_CASE("tables take $COLUMNS, else the terminal's width, else 100") {
  std::FILE* f = std::tmpfile();
  ::unsetenv("COLUMNS");
  CHECK(ar::output_width(f) == 100);
  ::setenv("COLUMNS", "132", 1);
  CHECK(ar::output_width(f) == 132);
  ::setenv("COLUMNS", "wide", 1);
  CHECK(ar::output_width(f) == 100);
  ::unsetenv("COLUMNS");
  std::fclose(f);
  Pty pty;
  struct winsize ws {};
  ws.ws_col = 77;
  ws.ws_row = 24;
  REQUIRE(::ioctl(pty.slave, TIOCSWINSZ, &ws) == 0);
  CHECK(ar::output_width(pty.out) == 77);
}
