#include "elf_file.h"

#include <elf.h>

#include <cstdio>
#include <cstring>

namespace ar::guard_detail {

namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the ELF reader reads little-endian files on a little-endian host");

// Far more than any compiler writes; a forged count must not allocate gigabytes.
constexpr uint64_t kMaxTableEntries = 1u << 22;

std::string hex(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
  return text;
}

// [offset, offset + size) inside a file of `total` bytes, without overflow.
bool fits(uint64_t offset, uint64_t size, uint64_t total) { return offset <= total && size <= total - offset; }

template <typename T>
T read_at(const std::string& bytes, uint64_t offset) {
  T v;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}

// A NUL-terminated name at `offset` inside a string table's bytes.
std::optional<std::string> string_at(std::string_view table, uint64_t offset) {
  if (offset >= table.size()) return std::nullopt;
  size_t end = table.find('\0', offset);
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(table.substr(offset, end - offset));
}

bool set_error(std::string* error, const std::string& message) {
  if (error) *error = message;
  return false;
}

}  // namespace

std::optional<ElfFile> ElfFile::parse(std::string bytes, std::string* error) {
  ElfFile f;
  f.bytes_ = std::move(bytes);
  const std::string& b = f.bytes_;
  const uint64_t total = b.size();
  if (total < sizeof(Elf64_Ehdr) || std::memcmp(b.data(), ELFMAG, SELFMAG) != 0) {
    set_error(error, "not an ELF file");
    return std::nullopt;
  }
  if (static_cast<unsigned char>(b[EI_CLASS]) != ELFCLASS64 || static_cast<unsigned char>(b[EI_DATA]) != ELFDATA2LSB) {
    set_error(error, "not a 64-bit little-endian ELF file");
    return std::nullopt;
  }
  const auto eh = read_at<Elf64_Ehdr>(b, 0);
  f.machine_ = eh.e_machine;
  f.file_type_ = eh.e_type;

  // Section headers, with the extended numbering of files with >= 0xff00 sections.
  uint64_t shnum = eh.e_shnum;
  uint64_t shstrndx = eh.e_shstrndx;
  if (eh.e_shoff != 0) {
    if (eh.e_shentsize < sizeof(Elf64_Shdr) || !fits(eh.e_shoff, sizeof(Elf64_Shdr), total)) {
      set_error(error, "section headers at " + hex(eh.e_shoff) + " lie outside the file or are too small");
      return std::nullopt;
    }
    const auto first = read_at<Elf64_Shdr>(b, eh.e_shoff);
    if (shnum == 0) shnum = first.sh_size;
    if (shstrndx == SHN_XINDEX) shstrndx = first.sh_link;
    if (shnum > kMaxTableEntries || !fits(eh.e_shoff, shnum * eh.e_shentsize, total)) {
      set_error(error, std::to_string(shnum) + " section headers at " + hex(eh.e_shoff) + " extend past the end of the file");
      return std::nullopt;
    }
  } else {
    shnum = 0;
  }
  std::vector<Elf64_Shdr> raw;
  raw.reserve(shnum);
  for (uint64_t i = 0; i < shnum; ++i) {
    const auto sh = read_at<Elf64_Shdr>(b, eh.e_shoff + i * eh.e_shentsize);
    if (sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL && !fits(sh.sh_offset, sh.sh_size, total)) {
      set_error(error, "section " + std::to_string(i) + " extends past the end of the file (offset " +
                           hex(sh.sh_offset) + ", size " + hex(sh.sh_size) + ")");
      return std::nullopt;
    }
    raw.push_back(sh);
  }
  std::string_view names;
  if (shnum > 0) {
    if (shstrndx >= shnum || raw[shstrndx].sh_type != SHT_STRTAB) {
      set_error(error, "the section-name table index " + std::to_string(shstrndx) + " is not a string table");
      return std::nullopt;
    }
    names = std::string_view(b).substr(raw[shstrndx].sh_offset, raw[shstrndx].sh_size);
  }
  for (uint64_t i = 0; i < shnum; ++i) {
    const auto& sh = raw[i];
    ElfSection s;
    auto name = string_at(names, sh.sh_name);
    if (!name && i != 0) {
      set_error(error, "section " + std::to_string(i) + " has a name outside the section-name table");
      return std::nullopt;
    }
    s.name = name.value_or("");
    s.type = sh.sh_type;
    s.flags = sh.sh_flags;
    s.addr = sh.sh_addr;
    s.offset = sh.sh_offset;
    s.size = sh.sh_size;
    s.link = sh.sh_link;
    s.info = sh.sh_info;
    s.entsize = sh.sh_entsize;
    f.sections_.push_back(std::move(s));
  }

  if (eh.e_phoff != 0 && eh.e_phnum > 0) {
    if (eh.e_phentsize < sizeof(Elf64_Phdr) ||
        !fits(eh.e_phoff, static_cast<uint64_t>(eh.e_phnum) * eh.e_phentsize, total)) {
      set_error(error, "program headers at " + hex(eh.e_phoff) + " extend past the end of the file");
      return std::nullopt;
    }
    for (uint64_t i = 0; i < eh.e_phnum; ++i) {
      const auto ph = read_at<Elf64_Phdr>(b, eh.e_phoff + i * eh.e_phentsize);
      if (ph.p_filesz > 0 && !fits(ph.p_offset, ph.p_filesz, total)) {
        set_error(error, "segment " + std::to_string(i) + " extends past the end of the file");
        return std::nullopt;
      }
      f.segments_.push_back({ph.p_type, ph.p_flags, ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_memsz});
    }
  }
  return f;
}

const ElfSection* ElfFile::section(std::string_view name) const {
  for (const auto& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

std::string_view ElfFile::contents(const ElfSection& s) const {
  if (s.type == SHT_NOBITS || s.type == SHT_NULL) return {};
  return std::string_view(bytes_).substr(s.offset, s.size);  // bounds checked in parse()
}

std::vector<ElfSymbol> ElfFile::symbols(const ElfSection& table, std::string* error) const {
  std::vector<ElfSymbol> out;
  if (table.type != SHT_SYMTAB && table.type != SHT_DYNSYM) {
    set_error(error, "section '" + table.name + "' is not a symbol table");
    return out;
  }
  const uint64_t entsize = table.entsize == 0 ? sizeof(Elf64_Sym) : table.entsize;
  if (entsize < sizeof(Elf64_Sym) || table.size % entsize != 0 || table.size / entsize > kMaxTableEntries) {
    set_error(error, "symbol table '" + table.name + "' has entries of " + std::to_string(entsize) + " bytes");
    return out;
  }
  if (table.link >= sections_.size() || sections_[table.link].type != SHT_STRTAB) {
    set_error(error, "symbol table '" + table.name + "' names no string table");
    return out;
  }
  const std::string_view strings = contents(sections_[table.link]);
  const uint64_t count = table.size / entsize;
  out.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    const auto sym = read_at<Elf64_Sym>(bytes_, table.offset + i * entsize);
    auto name = sym.st_name == 0 ? std::optional<std::string>("") : string_at(strings, sym.st_name);
    if (!name) {
      set_error(error, "symbol " + std::to_string(i) + " of '" + table.name + "' has a name outside its string table");
      return {};
    }
    ElfSymbol s;
    s.name = std::move(*name);
    s.bind = ELF64_ST_BIND(sym.st_info);
    s.type = ELF64_ST_TYPE(sym.st_info);
    s.shndx = sym.st_shndx;
    s.value = sym.st_value;
    s.size = sym.st_size;
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<ElfRelocation> ElfFile::relocations(const ElfSection& rela, std::string* error) const {
  std::vector<ElfRelocation> out;
  const uint64_t entsize = rela.entsize == 0 ? sizeof(Elf64_Rela) : rela.entsize;
  if (rela.type != SHT_RELA || entsize < sizeof(Elf64_Rela) || rela.size % entsize != 0 ||
      rela.size / entsize > kMaxTableEntries) {
    set_error(error, "section '" + rela.name + "' is not a table of relocations with addends");
    return out;
  }
  for (uint64_t i = 0; i < rela.size / entsize; ++i) {
    const auto r = read_at<Elf64_Rela>(bytes_, rela.offset + i * entsize);
    out.push_back({r.r_offset, static_cast<uint32_t>(ELF64_R_TYPE(r.r_info)), static_cast<uint32_t>(ELF64_R_SYM(r.r_info)),
                   r.r_addend});
  }
  return out;
}

}  // namespace ar::guard_detail
