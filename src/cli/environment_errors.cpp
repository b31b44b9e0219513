#include "environment_errors.h"

#include <dlfcn.h>

#include <fmt/format.h>

namespace ar {

std::string explain_fatal(const std::string& message) {
  const bool loader = message.find("error while loading shared libraries") != std::string::npos ||
                      message.find("cannot open shared object file") != std::string::npos;
  if (message.find("libcuda.so.1") == std::string::npos || !loader) return message;
  return kNoDriverMessage;
}

std::string explain_filesystem_error(const std::filesystem::filesystem_error& e) {
  std::string where = e.path1().empty() ? "a file" : e.path1().string();
  if (!e.path2().empty()) where += " (and " + e.path2().string() + ")";
  // what() is "filesystem error: <operation>: <reason> [path]"; keep the operation.
  std::string what = e.what();
  const std::string prefix = "filesystem error: ";
  if (what.rfind(prefix, 0) == 0) what.erase(0, prefix.size());
  size_t cut = what.find(": " + e.code().message());
  std::string operation = cut == std::string::npos ? "" : what.substr(0, cut);
  return fmt::format("{} {}: {}. autoresearch keeps its runs and caches in <repository>/.autoresearch: check "
                     "that you can write there (ls -ld, chmod u+w), that the disk is not full (df -h) and that the "
                     "file system is not mounted read-only",
                     operation.empty() ? "cannot use" : operation, where, e.code().message());
}

bool cuda_driver_present() {
  void* lib = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!lib) return false;
  ::dlclose(lib);
  return true;
}

}  // namespace ar
