#pragma once
// Time behind an interface so budget, plateau and timestamp logic test without sleeps.
#include <chrono>
#include <string>

namespace ar {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual double now_seconds() = 0;       // monotonic
  virtual std::string now_iso8601() = 0;  // wall clock, UTC, e.g. 2026-11-30T14:42:44Z
};

class RealClock : public Clock {
 public:
  double now_seconds() override;
  std::string now_iso8601() override;
};

class FakeClock : public Clock {
 public:
  double now_seconds() override { return t_; }
  std::string now_iso8601() override;  // derived from 2026-01-01T00:00:00Z + t
  void advance(double seconds) { t_ += seconds; }

 private:
  double t_ = 0;
};

}  // namespace ar
