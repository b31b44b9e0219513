#include "cpu/kernel_library.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "common/device.h"

namespace ar::harness {

namespace {

std::string temp_dir() {
  const char* t = std::getenv("TMPDIR");
  return (t && *t) ? t : "/tmp";
}

// Copies the artifact to a fresh file; returns its path.
std::string private_copy(const std::string& artifact, const std::string& slot) {
  std::ifstream in(artifact, std::ios::binary);
  if (!in) throw HarnessError("load_error", "cannot open '" + artifact + "': " + std::strerror(errno), slot);
  std::string pattern = temp_dir() + "/ar_kernel_XXXXXX.so";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = mkstemps(name.data(), 3);
  if (fd < 0)
    throw HarnessError("load_error", "cannot create a temporary copy in " + temp_dir() + ": " + std::strerror(errno), slot);
  std::string path(name.data());
  std::vector<char> buf(1 << 16);
  bool ok = true;
  while (ok && in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const char* p = buf.data();
    for (std::streamsize left = in.gcount(); ok && left > 0;) {
      ssize_t w = write(fd, p, static_cast<size_t>(left));
      ok = w > 0;
      p += w;
      left -= w;
    }
  }
  ok = close(fd) == 0 && ok && !in.bad();
  if (!ok) {
    unlink(path.c_str());
    throw HarnessError("load_error", "cannot copy '" + artifact + "' to " + path, slot);
  }
  return path;
}

std::string last_dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown dynamic loader error";
}

}  // namespace

KernelLibrary::KernelLibrary(const std::string& artifact, const std::string& slot)
    : artifact_(artifact) {
  const std::string copy = private_copy(artifact, slot);
  handle_ = dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::string error = handle_ ? "" : last_dl_error();
  // The mapping outlives the name; nothing is left behind in the temp folder.
  unlink(copy.c_str());
  if (!handle_) throw HarnessError("load_error", "dlopen '" + artifact + "': " + error, slot);

  dlerror();
  void* sym = dlsym(handle_, "ar_kernel");
  if (!sym) {
    error = last_dl_error();
    dlclose(handle_);
    handle_ = nullptr;
    throw HarnessError("load_error",
                       "'" + artifact + "' does not export extern \"C\" void ar_kernel(const void*): " + error,
                       slot);
  }
  kernel_ = reinterpret_cast<KernelFn>(sym);
}

KernelLibrary::~KernelLibrary() {
  if (handle_) dlclose(handle_);
}

}  // namespace ar::harness
