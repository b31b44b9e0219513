#include "autoresearch/ui/printer.h"

#include <cstdio>
#include <string>

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
