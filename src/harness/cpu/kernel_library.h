#pragma once
// One candidate shared object, loaded privately. dlopen() hands back the same
// handle for a path it has already opened (and keeps the old code mapped), so
// every load opens a fresh copy under a unique temporary name: two slots built
// from one file, or a reload after a rebuild, never share code or statics.
//
// The library also remembers its own writable memory as it was right after the
// load, so the device can tell, after every call, whether the kernel kept
// anything in it (writable_changes()).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/device.h"

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

  // Bytes of writable memory the object maps (every PT_LOAD segment with PF_W,
  // rounded out to whole pages: the tail of the last .bss page is writable too).
  size_t writable_bytes() const;
  // nullopt when every writable byte still equals the snapshot taken after the
  // load; otherwise what changed ("8 bytes at .bss+0x10 (near 'calls')"). The
  // snapshot is not updated: a change is reported on every later call too.
  std::optional<std::string> writable_changes() const;
  // The same memory as the harness core's state watch sees it
  // (Device::module_state): one entry per writable region, with a hash of its
  // bytes now.
  std::vector<ModuleVariable> writable_state() const;
  // Bytes of thread-local storage the object declares (its PT_TLS segment).
  // Thread-local variables live outside the mapped segments, so they cannot be
  // compared; the device refuses a kernel that has any.
  size_t tls_bytes() const { return tls_bytes_; }

 private:
  struct Region {
    uintptr_t start = 0;
    std::vector<unsigned char> snapshot;
  };
  void find_writable_memory(const std::string& slot);

  std::string artifact_;
  void* handle_ = nullptr;
  KernelFn kernel_ = nullptr;
  uintptr_t base_ = 0;
  std::vector<Region> writable_;
  size_t tls_bytes_ = 0;
};

}  // namespace ar::harness
