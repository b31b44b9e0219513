#include "autoresearch/util/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "autoresearch/util/errors.h"

namespace ar {
namespace {

std::string read_fd(int fd) {
  std::string out;
  char buf[4096];
  off_t offset = 0;
  for (;;) {
    ssize_t n = ::pread(fd, buf, sizeof buf, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
    offset += n;
  }
  return out;
}

// "pid 123\nrun 7 ..." -> "pid 123 (run 7 ...)", for a one-line error message.
std::string describe_holder(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (text.empty()) return "another process (it has not said who)";
  auto nl = text.find('\n');
  if (nl == std::string::npos) return text;
  std::string note = text.substr(nl + 1);
  for (char& c : note) {
    if (c == '\n') c = ' ';
  }
  return text.substr(0, nl) + " (" + note + ")";
}

}  // namespace

std::unique_ptr<FileLock> FileLock::try_acquire(const std::filesystem::path& path,
                                                const std::string& owner_note,
                                                std::string* holder) {
  std::error_code ec;
  if (!path.parent_path().empty()) std::filesystem::create_directories(path.parent_path(), ec);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw Fatal(kExitInfrastructure,
                "cannot open lock file " + path.string() + ": " + std::strerror(errno));
  }
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    int err = errno;
    std::string text = err == EWOULDBLOCK ? read_fd(fd) : "";
    ::close(fd);
    if (err != EWOULDBLOCK) {
      throw Fatal(kExitInfrastructure,
                  "cannot lock " + path.string() + ": " + std::strerror(err));
    }
    if (holder) *holder = describe_holder(text);
    return nullptr;
  }
  std::string note = "pid " + std::to_string(::getpid()) + "\n" + owner_note + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, note.data(), note.size(), 0) < 0) {
    // The lock holds without the note; only the error message of a rival suffers.
  }
  return std::unique_ptr<FileLock>(new FileLock(fd));
}

bool FileLock::is_held(const std::filesystem::path& path, std::string* holder) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;  // never created: nobody ever held it
  // A shared lock is refused while an exclusive one is held. Held for the few
  // microseconds until close(), it could make a run starting in that instant
  // find its lock busy; nothing is written, so nothing else can go wrong.
  bool held = false;
  while (::flock(fd, LOCK_SH | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    held = errno == EWOULDBLOCK;
    break;
  }
  if (held && holder) *holder = describe_holder(read_fd(fd));
  ::close(fd);
  return held;
}

FileLock::~FileLock() {
  // Cleared while still held, so a later reader never sees a stale owner. The
  // file itself stays: unlinking a lock file races with a rival opening it.
  if (::ftruncate(fd_, 0) != 0) { /* best effort */ }
  ::close(fd_);
}

}  // namespace ar
