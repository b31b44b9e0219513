#include "autoresearch/util/redact.h"

#include <algorithm>
#include <cctype>
#include <vector>

extern char** environ;

namespace ar {

namespace {

bool secret_name(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
  for (const char* word : {"KEY", "TOKEN", "SECRET", "PASSWORD"})
    if (name.find(word) != std::string::npos) return true;
  return false;
}

}  // namespace

std::string redact_secrets(std::string text) {
  if (text.empty() || !environ) return text;
  std::vector<std::pair<std::string, std::string>> secrets;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    std::string name = entry.substr(0, eq), value = entry.substr(eq + 1);
    if (value.size() >= 8 && secret_name(name)) secrets.emplace_back(name, value);
  }
  // Longest first, so a key that contains another is replaced whole.
  std::sort(secrets.begin(), secrets.end(), [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  for (const auto& [name, value] : secrets) {
    const std::string mark = "[redacted $" + name + "]";
    for (size_t at = text.find(value); at != std::string::npos; at = text.find(value, at + mark.size()))
      text.replace(at, value.size(), mark);
  }
  return text;
}

}  // namespace ar
