#pragma once
// One candidate shared object, loaded privately. dlopen() hands back the same
// handle for a path it has already opened (and keeps the old code mapped), so
// every load opens a fresh copy under a unique temporary name: two slots built
// from one file, or a reload after a rebuild, never share code or statics.
#include <string>

namespace ar::harness {

using KernelFn = void (*)(const void* params);

class KernelLibrary {
 public:
  // Throws HarnessError("load_error") with dlerror()'s message.
  KernelLibrary(const std::string& artifact, const std::string& slot);
  ~KernelLibrary();
  KernelLibrary(const KernelLibrary&) = delete;
  KernelLibrary& operator=(const KernelLibrary&) = delete;

  KernelFn kernel() const { return kernel_; }
  const std::string& artifact() const { return artifact_; }

 private:
  std::string artifact_;
  void* handle_ = nullptr;
  KernelFn kernel_ = nullptr;
};

}  // namespace ar::harness
