#include "cpu/kernel_library.h"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
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
  // RTLD_NOW: every relocation is resolved here, so nothing the loader does
  // later (lazy PLT binding) writes into the object's GOT after the snapshot.
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
  try {
    find_writable_memory(slot);
  } catch (...) {
    dlclose(handle_);
    handle_ = nullptr;
    throw;
  }
}

namespace {

struct PhdrSearch {
  uintptr_t base;
  const char* name;
  std::vector<ElfW(Phdr)> phdrs;
  bool found = false;
};

int collect_phdrs(struct dl_phdr_info* info, size_t, void* data) {
  auto* s = static_cast<PhdrSearch*>(data);
  if (info->dlpi_addr != s->base || !info->dlpi_name || std::strcmp(info->dlpi_name, s->name) != 0) return 0;
  s->phdrs.assign(info->dlpi_phdr, info->dlpi_phdr + info->dlpi_phnum);
  s->found = true;
  return 1;
}

std::string hex(uintptr_t v) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
  return text;
}

}  // namespace

// Constructors have run (inside dlopen), so what is here now is what every call
// must find again. Pages, not p_memsz: the rest of the last .bss page is as
// writable as the variables before it, and a kernel can keep a counter there.
void KernelLibrary::find_writable_memory(const std::string& slot) {
  struct link_map* map = nullptr;
  if (dlinfo(handle_, RTLD_DI_LINKMAP, &map) != 0 || !map)
    throw HarnessError("load_error", "dlinfo '" + artifact_ + "': " + last_dl_error(), slot);
  base_ = map->l_addr;
  PhdrSearch search{map->l_addr, map->l_name, {}};
  dl_iterate_phdr(collect_phdrs, &search);
  if (!search.found)
    throw HarnessError("load_error", "cannot find the program headers of '" + artifact_ + "' after loading it", slot);
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  for (const auto& ph : search.phdrs) {
    if (ph.p_type == PT_TLS) tls_bytes_ += ph.p_memsz;
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_W) || ph.p_memsz == 0) continue;
    const uintptr_t start = (base_ + ph.p_vaddr) & ~(page - 1);
    const uintptr_t end = (base_ + ph.p_vaddr + ph.p_memsz + page - 1) & ~(page - 1);
    Region r;
    r.start = start;
    const auto* bytes = reinterpret_cast<const unsigned char*>(start);
    r.snapshot.assign(bytes, bytes + (end - start));
    writable_.push_back(std::move(r));
  }
}

std::vector<ModuleVariable> KernelLibrary::writable_state() const {
  std::vector<ModuleVariable> out;
  for (const auto& r : writable_) {
    const auto* now = reinterpret_cast<const unsigned char*>(r.start);
    uint64_t h = 0xcbf29ce484222325ull;   // FNV-1a: a hash, not a proof; writable_changes() compares bytes
    for (size_t i = 0; i < r.snapshot.size(); ++i) h = (h ^ now[i]) * 0x100000001b3ull;
    ModuleVariable v;
    v.name = "writable pages " + hex(r.start - base_) + "-" + hex(r.start - base_ + r.snapshot.size());
    v.section = "PT_LOAD (RW)";
    v.bytes = r.snapshot.size();
    v.hash = hex(h);
    out.push_back(std::move(v));
  }
  return out;
}

size_t KernelLibrary::writable_bytes() const {
  size_t n = 0;
  for (const auto& r : writable_) n += r.snapshot.size();
  return n;
}

std::optional<std::string> KernelLibrary::writable_changes() const {
  size_t changed = 0;
  uintptr_t first = 0;
  for (const auto& r : writable_) {
    const auto* now = reinterpret_cast<const unsigned char*>(r.start);
    if (std::memcmp(now, r.snapshot.data(), r.snapshot.size()) == 0) continue;  // the common case: fast
    for (size_t i = 0; i < r.snapshot.size(); ++i) {
      if (now[i] == r.snapshot[i]) continue;
      if (changed++ == 0) first = r.start + i;
    }
  }
  if (changed == 0) return std::nullopt;
  std::string where = "offset " + hex(first - base_) + " of the object";
  Dl_info info{};
  void* entry = nullptr;
  const bool named = dladdr1(reinterpret_cast<void*>(first), &info, &entry, RTLD_DL_SYMENT) != 0;
  const auto* sym = static_cast<const ElfW(Sym)*>(entry);
  if (named && sym &&
      info.dli_sname && first >= reinterpret_cast<uintptr_t>(info.dli_saddr) &&
      first < reinterpret_cast<uintptr_t>(info.dli_saddr) + sym->st_size)
    where += " ('" + std::string(info.dli_sname) + "')";
  return std::to_string(changed) + " byte" + (changed == 1 ? "" : "s") + " of its writable data changed, the first at " +
         where;
}

KernelLibrary::~KernelLibrary() {
  if (handle_) dlclose(handle_);
}

}  // namespace ar::harness
