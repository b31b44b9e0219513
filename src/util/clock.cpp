#include "autoresearch/util/clock.h"

#include <cmath>
#include <ctime>

namespace ar {
namespace {

constexpr std::time_t kFakeEpoch = 1767225600;  // 2026-01-01T00:00:00Z

std::string format_utc(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

double RealClock::now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string RealClock::now_iso8601() {
  return format_utc(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now()));
}

std::string FakeClock::now_iso8601() {
  return format_utc(kFakeEpoch + static_cast<std::time_t>(std::floor(t_)));
}

}  // namespace ar
