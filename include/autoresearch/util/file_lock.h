#pragma once
// Exclusive advisory locks (flock) held for the life of the object. A crashed
// holder releases its lock with its file descriptor, so stale locks cannot block
// a resume after a reboot or a kill -9.
#include <filesystem>
#include <memory>
#include <string>

namespace ar {

class FileLock {
 public:
  // nullptr when another process holds it; *holder then says who (pid and
  // what the holder wrote: run id, command line), for the error message.
  static std::unique_ptr<FileLock> try_acquire(const std::filesystem::path& path,
                                               const std::string& owner_note,
                                               std::string* holder);
  // Whether another process holds the lock at `path`, without taking it or
  // writing anything (a listing must not block a run starting meanwhile, and
  // works on a read-only state folder). *holder as for try_acquire.
  static bool is_held(const std::filesystem::path& path, std::string* holder);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace ar
