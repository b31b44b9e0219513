#pragma once
#include "autoresearch/loop/world.h"

namespace ar {

// The real processes, clock, printer and signal handling of a command, owned in
// one place (World points into it, so it neither moves nor copies).
struct RealWorld {
  RealProcessRunner runner;
  RealClock clock;
  TerminalPrinter printer{stderr};
  World world;
  RealWorld() : world(real_world(runner, clock, printer, install_stop_signals())) {}
  RealWorld(const RealWorld&) = delete;
  RealWorld& operator=(const RealWorld&) = delete;
};

}  // namespace ar
