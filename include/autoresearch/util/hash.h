#pragma once
// SHA-256 for cache keys and file fingerprints (content identity must not collide).
#include <filesystem>
#include <string>
#include <string_view>

namespace ar {

std::string sha256_hex(std::string_view data);
// Hash of a file's bytes; throws ar::Fatal(kExitUsage) naming the path if unreadable.
std::string sha256_file(const std::filesystem::path& path);

// Incremental form, for hashing many pieces (file names and contents) into one key.
class Sha256 {
 public:
  Sha256();
  void update(std::string_view data);
  std::string hex_digest();  // finishes; the object must not be updated afterwards

 private:
  unsigned int h_[8];
  unsigned char buf_[64];
  unsigned long long len_ = 0;
  size_t fill_ = 0;
  void block(const unsigned char* p);
};

}  // namespace ar
