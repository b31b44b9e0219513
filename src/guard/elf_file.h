#pragma once
// A small, defensive reader of 64-bit little-endian ELF files: a candidate's
// cubin (e_machine EM_CUDA) or shared object (EM_X86_64, EM_AARCH64). It reads
// what the compiled-code scan needs (sections, symbol tables, program headers,
// relocations with addends) and nothing else. Every offset and size read from
// the file is checked against the file before use: a truncated or forged file
// is an error with a message, never an out-of-bounds read.
//
// The CUDA harness (src/harness/cuda/, a separate program) reads cubins too,
// for the __device__ globals it hashes; the two readers are separate on purpose:
// the harness links nothing of the driver.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ar::guard_detail {

struct ElfSection {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t addr = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t link = 0;
  uint32_t info = 0;
  uint64_t entsize = 0;
};

struct ElfSymbol {
  std::string name;
  uint8_t bind = 0;     // STB_LOCAL, STB_GLOBAL, STB_WEAK
  uint8_t type = 0;     // STT_NOTYPE, STT_OBJECT, STT_FUNC, STT_TLS, ...
  uint16_t shndx = 0;   // SHN_UNDEF (0) for an undefined symbol
  uint64_t value = 0;
  uint64_t size = 0;
  bool undefined() const { return shndx == 0; }
};

struct ElfSegment {
  uint32_t type = 0;    // PT_LOAD, PT_TLS, PT_DYNAMIC, ...
  uint32_t flags = 0;   // PF_R | PF_W | PF_X
  uint64_t offset = 0;
  uint64_t vaddr = 0;
  uint64_t filesz = 0;
  uint64_t memsz = 0;
};

struct ElfRelocation {
  uint64_t offset = 0;
  uint32_t type = 0;
  uint32_t symbol = 0;
  int64_t addend = 0;
};

class ElfFile {
 public:
  // nullopt + *error ("not an ELF file", "section 7 extends past the end of
  // the file (offset 0x..., size 0x...)") when the bytes are not a well-formed
  // ELF64 little-endian file.
  static std::optional<ElfFile> parse(std::string bytes, std::string* error);

  uint16_t machine() const { return machine_; }
  uint16_t file_type() const { return file_type_; }   // ET_REL, ET_EXEC, ET_DYN
  const std::vector<ElfSection>& sections() const { return sections_; }
  const std::vector<ElfSegment>& segments() const { return segments_; }
  const ElfSection* section(std::string_view name) const;

  // The symbols of a SHT_SYMTAB or SHT_DYNSYM section (index 0, the null
  // symbol, included so indices match relocations).
  std::vector<ElfSymbol> symbols(const ElfSection& table, std::string* error) const;
  // The entries of a SHT_RELA section.
  std::vector<ElfRelocation> relocations(const ElfSection& rela, std::string* error) const;
  // A section's bytes; empty for SHT_NOBITS.
  std::string_view contents(const ElfSection& s) const;

 private:
  std::string bytes_;
  uint16_t machine_ = 0;
  uint16_t file_type_ = 0;
  std::vector<ElfSection> sections_;
  std::vector<ElfSegment> segments_;
};

}  // namespace ar::guard_detail
