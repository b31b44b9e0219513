#pragma once
// The variables of a cubin that live across launches, read from its ELF
// symbol table (a small ELF64 reader, no libelf): every STT_OBJECT symbol
// defined in a section named .nv.global* (__device__ variables, initialised or
// not, `const` included: .nv.global.init) or .nv.constant* (__constant__).
// Shared memory (.nv.shared*) and local memory do not outlive a launch and
// are left out. The names are the symbol table's, so a variable is found
// however the source spelled it (macros, token pasting, anonymous namespaces,
// `static`). Host C++ only: unit-tested without a GPU.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ar::harness {

struct CubinVariable {
  std::string name;
  std::string section;   // ".nv.global", ".nv.global.init", ".nv.constant3", ...
  uint64_t offset = 0;   // st_value: the offset inside its section
  uint64_t size = 0;     // st_size in bytes
  bool constant() const { return section.rfind(".nv.constant", 0) == 0; }
};

// A file that is not a well-formed ELF64 cubin; the message says what is wrong.
struct CubinFormatError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The variables of the cubin image in [data, data + size), in symbol-table
// order. Every offset, size and string index is checked against the image.
std::vector<CubinVariable> cubin_variables(const unsigned char* data, size_t size);
std::vector<CubinVariable> cubin_variables(const std::vector<unsigned char>& image);

// Reads a whole file (CubinFormatError when it cannot be read).
std::vector<unsigned char> read_file_bytes(const std::string& path);

}  // namespace ar::harness
