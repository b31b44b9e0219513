#include "cuda/cubin_symbols.h"

#include <cstring>
#include <fstream>
#include <iterator>

namespace ar::harness {

namespace {

// ELF64 constants (System V ABI); offsets are the fields' byte positions.
constexpr size_t kEhdrSize = 64, kShdrSize = 64, kSymSize = 24;
constexpr uint16_t kMachineCuda = 190;
constexpr uint32_t kSymtab = 2, kStrtab = 3, kNobits = 8, kSymtabShndx = 18;
constexpr uint16_t kUndef = 0, kLoReserve = 0xff00, kXindex = 0xffff;
constexpr unsigned kObject = 1;

[[noreturn]] void bad(const std::string& why) { throw CubinFormatError("not a well-formed cubin: " + why); }

// Little-endian reads at a checked offset.
class Image {
 public:
  Image(const unsigned char* data, size_t size) : data_(data), size_(size) {}
  size_t size() const { return size_; }

  template <typename T>
  T at(uint64_t offset, const char* what) const {
    if (offset > size_ || sizeof(T) > size_ - offset) bad(std::string(what) + " lies past the end of the file");
    T v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(static_cast<T>(data_[offset + i]) << (8 * i));
    return v;
  }
  bool contains(uint64_t offset, uint64_t bytes) const { return offset <= size_ && bytes <= size_ - offset; }
  const unsigned char* ptr(uint64_t offset) const { return data_ + offset; }

 private:
  const unsigned char* data_;
  size_t size_;
};

struct Section {
  uint32_t name = 0, type = 0, link = 0;
  uint64_t offset = 0, size = 0, entsize = 0;
};

// The NUL-terminated string at `index` of a string table.
std::string string_at(const Image& img, const Section& table, uint64_t index, const char* what) {
  if (table.type != kStrtab) bad(std::string(what) + ": its string table is not SHT_STRTAB");
  if (index >= table.size) bad(std::string(what) + ": name index " + std::to_string(index) + " past its string table");
  const auto* begin = reinterpret_cast<const char*>(img.ptr(table.offset + index));
  const void* end = std::memchr(begin, '\0', static_cast<size_t>(table.size - index));
  if (!end) bad(std::string(what) + ": a name runs past the end of its string table");
  return std::string(begin, static_cast<const char*>(end));
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Lives across launches: global memory (initialised or not) and constant banks.
bool persistent_section(const std::string& name) {
  return starts_with(name, ".nv.global") || starts_with(name, ".nv.constant");
}

}  // namespace

std::vector<CubinVariable> cubin_variables(const unsigned char* data, size_t size) {
  const Image img(data, size);
  if (size < kEhdrSize) bad("shorter than an ELF header (" + std::to_string(size) + " bytes)");
  if (std::memcmp(data, "\x7f" "ELF", 4) != 0) {
    if (size >= 4 && img.at<uint32_t>(0, "magic") == 0xBA55ED50u) bad("a fatbinary, not a cubin (compile with -cubin)");
    bad("no ELF magic number");
  }
  if (data[4] != 2) bad("not a 64-bit ELF file");
  if (data[5] != 1) bad("not a little-endian ELF file");
  const auto machine = img.at<uint16_t>(18, "e_machine");
  if (machine != kMachineCuda) bad("e_machine is " + std::to_string(machine) + ", not CUDA (190)");

  const auto shoff = img.at<uint64_t>(40, "e_shoff");
  const auto shentsize = img.at<uint16_t>(58, "e_shentsize");
  uint64_t shnum = img.at<uint16_t>(60, "e_shnum");
  uint64_t shstrndx = img.at<uint16_t>(62, "e_shstrndx");
  if (shoff == 0) bad("no section header table");
  if (shentsize != kShdrSize) bad("section headers of " + std::to_string(shentsize) + " bytes (expected 64)");
  // Extended numbering: the real counts live in section header 0.
  if (shnum == 0) shnum = img.at<uint64_t>(shoff + 32, "section header 0");
  if (shstrndx == kXindex) shstrndx = img.at<uint32_t>(shoff + 40, "section header 0");
  if (shnum == 0 || shnum > size / kShdrSize || !img.contains(shoff, shnum * kShdrSize))
    bad("the section header table (" + std::to_string(shnum) + " entries at " + std::to_string(shoff) +
        ") lies outside the file");
  if (shstrndx >= shnum) bad("the section-name table index " + std::to_string(shstrndx) + " is out of range");

  std::vector<Section> sections(shnum);
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint64_t h = shoff + i * kShdrSize;
    Section& s = sections[i];
    s.name = img.at<uint32_t>(h, "sh_name");
    s.type = img.at<uint32_t>(h + 4, "sh_type");
    s.offset = img.at<uint64_t>(h + 24, "sh_offset");
    s.size = img.at<uint64_t>(h + 32, "sh_size");
    s.link = img.at<uint32_t>(h + 40, "sh_link");
    s.entsize = img.at<uint64_t>(h + 56, "sh_entsize");
    if (s.type != kNobits && s.type != 0 && !img.contains(s.offset, s.size))
      bad("section " + std::to_string(i) + " (" + std::to_string(s.size) + " bytes at " + std::to_string(s.offset) +
          ") lies outside the file");
  }
  const Section& shstr = sections[shstrndx];
  auto section_name = [&](uint64_t i) { return string_at(img, shstr, sections[i].name, "a section"); };

  std::vector<CubinVariable> out;
  for (uint64_t t = 0; t < shnum; ++t) {
    const Section& symtab = sections[t];
    if (symtab.type != kSymtab) continue;
    if (symtab.entsize != kSymSize) bad("a symbol table with " + std::to_string(symtab.entsize) + "-byte entries");
    if (symtab.link >= shnum) bad("the symbol table's string table index is out of range");
    const Section& strtab = sections[symtab.link];
    // Section indices >= 0xff00 of symbols are in an SHT_SYMTAB_SHNDX section when one exists.
    const Section* xindex = nullptr;
    for (const Section& s : sections)
      if (s.type == kSymtabShndx && s.link == t) xindex = &s;
    const uint64_t count = symtab.size / kSymSize;
    for (uint64_t k = 0; k < count; ++k) {
      const uint64_t e = symtab.offset + k * kSymSize;
      const auto info = img.at<uint8_t>(e + 4, "st_info");
      if ((info & 0xF) != kObject) continue;
      uint64_t shndx = img.at<uint16_t>(e + 6, "st_shndx");
      if (shndx == kXindex) {
        if (!xindex || (k + 1) * 4 > xindex->size) bad("a symbol's extended section index is missing");
        shndx = img.at<uint32_t>(xindex->offset + k * 4, "an extended section index");
      } else if (shndx == kUndef || shndx >= kLoReserve) {
        continue;   // undefined, absolute or common: nothing of this module's memory
      }
      if (shndx >= shnum) bad("symbol " + std::to_string(k) + " names section " + std::to_string(shndx) +
                              " of " + std::to_string(shnum));
      const std::string section = section_name(shndx);
      if (!persistent_section(section)) continue;
      CubinVariable v;
      v.name = string_at(img, strtab, img.at<uint32_t>(e, "st_name"), "a symbol");
      v.section = section;
      v.offset = img.at<uint64_t>(e + 8, "st_value");
      v.size = img.at<uint64_t>(e + 16, "st_size");
      const Section& home = sections[shndx];
      if (v.offset > home.size || v.size > home.size - v.offset)
        bad("variable `" + v.name + "` (" + std::to_string(v.size) + " bytes at " + std::to_string(v.offset) +
            ") lies outside its section " + section);
      if (v.name.empty()) bad("a variable in " + section + " has no name");
      out.push_back(std::move(v));
    }
  }
  return out;
}

std::vector<CubinVariable> cubin_variables(const std::vector<unsigned char>& image) {
  return cubin_variables(image.data(), image.size());
}

std::vector<unsigned char> read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CubinFormatError("cannot read '" + path + "'");
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace ar::harness
