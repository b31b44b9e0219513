#include "autoresearch/util/clock.h"

#include <regex>

#include "catch.h"

using namespace ar;

TEST_CASE("the fake clock starts at 2026-01-01 and advances on request") {
  FakeClock clock;
  CHECK(clock.now_seconds() == 0);
  CHECK(clock.now_iso8601() == "2026-01-01T00:00:00Z");
  clock.advance(3661.7);
  CHECK(clock.now_seconds() == Approx(3661.7));
  CHECK(clock.now_iso8601() == "2026-01-01T01:01:01Z");
  clock.advance(86400.0 * 59);
  CHECK(clock.now_iso8601() == "2026-03-01T01:01:01Z");
}

TEST_CASE("the real clock is monotonic and prints UTC") {
  RealClock clock;
  double a = clock.now_seconds();
  double b = clock.now_seconds();
  CHECK(b >= a);
  CHECK(std::regex_match(clock.now_iso8601(),
                         std::regex(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)")));
}
