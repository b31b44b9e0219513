#pragma once
// The protocol loop's dispatch: one JSON request in, one JSON reply out. Every
// failure becomes a reply ({"ok":false,"kind":...}); only a device fault asks
// the caller to exit afterwards, because the device cannot be trusted again.
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "common/device.h"
#include "common/state_watch.h"

namespace ar::harness {

inline constexpr int kProtocolVersion = 1;
inline constexpr int kExitAfterFault = 3;

// Module state (state_watch.h) is baselined at every load and proven
// unchanged after every verify and bench (and during a bench); a slot whose
// state changed is reloaded from its artifact, so the next request starts from
// the state as loaded whoever changed it.
class Server {
 public:
  Server(Device& device, Problem& problem) : device_(device), problem_(problem), watch_(device) {}

  // Parses one request line and returns the reply (never throws).
  nlohmann::json handle_line(const std::string& line);
  nlohmann::json handle(const nlohmann::json& request);

  bool quit_requested() const { return quit_; }
  bool fault_seen() const { return fault_; }

 private:
  friend struct Commands;
  // After a verify or bench: reloads every slot whose module state changed and
  // returns the guard error for the first change (nullopt when none changed).
  std::optional<GuardError> settle_state(const std::string& when);

  Device& device_;
  Problem& problem_;
  StateWatch watch_;
  std::map<std::string, std::string> artifacts_;   // slot -> what it was loaded from
  bool quit_ = false;
  bool fault_ = false;
};

nlohmann::json error_reply(const std::string& kind, const std::string& message,
                           const std::string& slot = "");
// {"ok":false,"kind":"guard","rule":...,"error":...,"slot":...} plus the details.
nlohmann::json guard_reply(const GuardError& e, const std::string& slot);

}  // namespace ar::harness
