#include "autoresearch/util/fs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "autoresearch/util/errors.h"

namespace ar {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(ExitCode code, const std::string& what, const fs::path& path, int err) {
  throw Fatal(code, what + " " + path.string() + ": " + std::strerror(err));
}

void create_parent(const fs::path& path, ExitCode code) {
  auto parent = path.parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) fail(code, "cannot create directory", parent, ec.value());
}

// Writes everything or returns the errno of the failed write.
int write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    done += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

std::string read_file(const fs::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(kExitUsage, "cannot read", path, errno);
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      fail(kExitUsage, "cannot read", path, err);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

void write_file_atomic(const fs::path& path, const std::string& data) {
  create_parent(path, kExitInfrastructure);
  static std::atomic<unsigned> counter{0};
  fs::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);

  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) fail(kExitInfrastructure, "cannot write", tmp, errno);
  struct stat old {};
  if (::stat(path.c_str(), &old) == 0) ::fchmod(fd, old.st_mode & 07777);  // keep e.g. +x
  int err = write_all(fd, data);
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    fail(kExitInfrastructure, "cannot write", path, err);
  }
  // The rename itself is only durable once the directory entry is on disk.
  fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

void append_line_durable(const fs::path& path, const std::string& line) {
  create_parent(path, kExitInfrastructure);
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) fail(kExitInfrastructure, "cannot append to", path, errno);
  struct stat before {};
  bool sized = ::fstat(fd, &before) == 0;
  // One write() of the whole line, so a concurrent reader (log --follow) sees
  // whole lines in the common case.
  int err = write_all(fd, line + "\n");
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (err != 0 && sized) {
    // Take back a torn line (disk full mid-write) so the log stays parseable.
    if (::ftruncate(fd, before.st_size) != 0) { /* nothing more to do */ }
  }
  ::close(fd);
  if (err != 0) fail(kExitInfrastructure, "cannot append to", path, err);
}

}  // namespace ar
