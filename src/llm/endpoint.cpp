// Which endpoints cost money. A host on this machine or the local network
// (llama.cpp, vLLM, Ollama) is free; anything else is assumed paid, so that a
// cost budget applies unless the user points at something local.
#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <string>

#include "autoresearch/llm/prices.h"

namespace ar {
namespace {

std::string host_of(const std::string& url) {
  size_t start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  size_t end = url.find_first_of("/?#", start);
  std::string authority = url.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (size_t at = authority.rfind('@'); at != std::string::npos) authority = authority.substr(at + 1);
  if (!authority.empty() && authority.front() == '[') {  // [IPv6]:port
    size_t close = authority.find(']');
    return authority.substr(1, close == std::string::npos ? std::string::npos : close - 1);
  }
  return authority.substr(0, authority.find(':'));
}

bool local_ipv4(const uint8_t* a) {
  return a[0] == 127 || a[0] == 10 || (a[0] == 172 && (a[1] & 0xf0) == 16) ||
         (a[0] == 192 && a[1] == 168) || (a[0] == 169 && a[1] == 254) ||
         (a[0] == 0 && a[1] == 0 && a[2] == 0 && a[3] == 0);
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

bool is_paid_endpoint(const std::string& base_url) {
  if (base_url.empty()) return true;  // the provider's public default
  std::string host = host_of(base_url);
  std::transform(host.begin(), host.end(), host.begin(), [](unsigned char c) { return std::tolower(c); });
  while (!host.empty() && host.back() == '.') host.pop_back();
  if (host.empty()) return true;
  if (host == "localhost" || ends_with(host, ".localhost") || ends_with(host, ".local")) return false;
  std::array<uint8_t, 16> bytes{};
  if (inet_pton(AF_INET, host.c_str(), bytes.data()) == 1) return !local_ipv4(bytes.data());
  if (inet_pton(AF_INET6, host.c_str(), bytes.data()) == 1) {
    static const std::array<uint8_t, 16> kLoopback = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    static const std::array<uint8_t, 16> kAny{};
    if (bytes == kLoopback || bytes == kAny) return false;
    if ((bytes[0] & 0xfe) == 0xfc) return false;                      // fc00::/7, unique local
    if (bytes[0] == 0xfe && (bytes[1] & 0xc0) == 0x80) return false;  // fe80::/10, link-local
    bool v4_mapped = std::all_of(bytes.begin(), bytes.begin() + 10, [](uint8_t b) { return b == 0; }) &&
                     bytes[10] == 0xff && bytes[11] == 0xff;
    if (v4_mapped) return !local_ipv4(bytes.data() + 12);
    return true;
  }
  return true;
}

}  // namespace ar
