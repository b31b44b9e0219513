#pragma once
// The protocol loop's dispatch: one JSON request in, one JSON reply out. Every
// failure becomes a reply ({"ok":false,"kind":...}); only a device fault asks
// the caller to exit afterwards, because the device cannot be trusted again.
#include <memory>
#include <string>

#include "common/device.h"

namespace ar::harness {

inline constexpr int kProtocolVersion = 1;
inline constexpr int kExitAfterFault = 3;

class Server {
 public:
  Server(Device& device, Problem& problem) : device_(device), problem_(problem) {}

  // Parses one request line and returns the reply (never throws).
  nlohmann::json handle_line(const std::string& line);
  nlohmann::json handle(const nlohmann::json& request);

  bool quit_requested() const { return quit_; }
  bool fault_seen() const { return fault_; }

 private:
  friend struct Commands;
  Device& device_;
  Problem& problem_;
  bool quit_ = false;
  bool fault_ = false;
};

nlohmann::json error_reply(const std::string& kind, const std::string& message,
                           const std::string& slot = "");

}  // namespace ar::harness
