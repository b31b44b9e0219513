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

// Key-shaped tokens ("sk-proj-...", "sk-ant-..."): the shape of OpenAI's and
// Anthropic's keys, which endpoints and CLIs echo (partly masked) in errors.
std::string redact_key_shaped(std::string text) {
  static const std::string kRedacted = "[redacted]";
  auto key_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '*' || c == '.';
  };
  for (size_t at = text.find("sk-"); at != std::string::npos; at = text.find("sk-", at + 1)) {
    if (at > 0 && key_char(text[at - 1]) && text[at - 1] != '.') continue;  // inside a word
    size_t end = at + 3;
    while (end < text.size() && key_char(text[end])) ++end;
    while (end > at + 3 && text[end - 1] == '.') --end;  // a sentence's full stop
    if (end - at >= 8) text.replace(at, end - at, kRedacted);
  }
  return text;
}

}  // namespace

std::string redact_secrets(std::string text) {
  if (text.empty()) return text;
  if (!environ) return redact_key_shaped(std::move(text));
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
  return redact_key_shaped(std::move(text));
}

}  // namespace ar
