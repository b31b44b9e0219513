// The cubin ELF reader (src/harness/cuda/cubin_symbols.h): a synthetic ELF64
// image built here (every malformation rejected with a reason), and, tagged
// [cuda-compile], a real cubin that nvcc compiled on this machine from
// cubin_probe.cu (AR_PROBE_CUBIN names it; see tests/harness/CMakeLists.txt).
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "catch.h"
#include "cuda/cubin_symbols.h"

using ar::harness::CubinFormatError;
using ar::harness::CubinVariable;
using ar::harness::cubin_variables;

namespace {

// A minimal ELF64 cubin: sections and symbols as given, laid out in order.
struct ElfBuilder {
  struct Sec {
    std::string name;
    uint32_t type;
    std::vector<unsigned char> data;
    uint64_t nobits_size = 0;
    uint32_t link = 0;
    uint64_t entsize = 0;
  };
  struct Sym {
    std::string name;
    uint8_t info;
    uint16_t shndx;
    uint64_t value, size;
  };
  std::vector<Sec> secs;   // secs[0] is the null section
  std::vector<Sym> syms;
  uint16_t machine = 190;

  static void put(std::vector<unsigned char>& v, uint64_t x, int bytes) {
    for (int i = 0; i < bytes; ++i) v.push_back(static_cast<unsigned char>(x >> (8 * i)));
  }
  static void poke(std::vector<unsigned char>& v, size_t at, uint64_t x, int bytes) {
    for (int i = 0; i < bytes; ++i) v[at + i] = static_cast<unsigned char>(x >> (8 * i));
  }

  // Sections: 0 null, 1 .shstrtab, 2 .strtab, 3 .symtab, then the user's.
  std::vector<unsigned char> build() const {
    std::vector<Sec> all = {{"", 0, {}}, {".shstrtab", 3, {}}, {".strtab", 3, {}}, {".symtab", 2, {}, 0, 2, 24}};
    all.insert(all.end(), secs.begin(), secs.end());
    std::vector<uint32_t> name_at(all.size());
    all[1].data.push_back(0);
    for (size_t i = 1; i < all.size(); ++i) {
      name_at[i] = static_cast<uint32_t>(all[1].data.size());
      all[1].data.insert(all[1].data.end(), all[i].name.begin(), all[i].name.end());
      all[1].data.push_back(0);
    }
    all[2].data.push_back(0);
    std::vector<unsigned char> symtab(24, 0);   // the null symbol
    for (const Sym& s : syms) {
      const auto name = static_cast<uint32_t>(all[2].data.size());
      all[2].data.insert(all[2].data.end(), s.name.begin(), s.name.end());
      all[2].data.push_back(0);
      put(symtab, name, 4);
      put(symtab, s.info, 1);
      put(symtab, 0, 1);
      put(symtab, s.shndx, 2);
      put(symtab, s.value, 8);
      put(symtab, s.size, 8);
    }
    all[3].data = symtab;

    std::vector<unsigned char> img(64, 0);
    std::memcpy(img.data(), "\x7f" "ELF", 4);
    img[4] = 2;
    img[5] = 1;
    img[6] = 1;
    poke(img, 18, machine, 2);
    std::vector<uint64_t> offset(all.size(), 0);
    for (size_t i = 1; i < all.size(); ++i) {
      offset[i] = img.size();
      img.insert(img.end(), all[i].data.begin(), all[i].data.end());
    }
    const uint64_t shoff = img.size();
    for (size_t i = 0; i < all.size(); ++i) {
      put(img, i ? name_at[i] : 0, 4);
      put(img, all[i].type, 4);
      put(img, 0, 8);
      put(img, 0, 8);
      put(img, all[i].type == 8 ? 0 : offset[i], 8);
      put(img, all[i].type == 8 ? all[i].nobits_size : all[i].data.size(), 8);
      put(img, all[i].link, 4);
      put(img, 0, 4);
      put(img, 1, 8);
      put(img, all[i].entsize, 8);
    }
    poke(img, 40, shoff, 8);
    poke(img, 52, 64, 2);
    poke(img, 58, 64, 2);
    poke(img, 60, all.size(), 2);
    poke(img, 62, 1, 2);
    return img;
  }
};

// Four user sections: 4 .nv.global (16 B), 5 .nv.constant3 (8 B), 6 .nv.shared.k, 7 .text.k.
ElfBuilder sample() {
  ElfBuilder b;
  b.secs = {{".nv.global", 8, {}, 16}, {".nv.constant3", 1, std::vector<unsigned char>(8, 0)},
            {".nv.shared.k", 8, {}, 64}, {".text.k", 1, std::vector<unsigned char>(16, 0)}};
  b.syms = {{".nv.global", 3, 4, 0, 0},       // a section symbol
            {"g_counter", 1, 4, 4, 4},        // LOCAL OBJECT
            {"g_tab", 0x11, 4, 8, 8},         // GLOBAL OBJECT
            {"c_table", 1, 5, 0, 8},
            {"sh_buf", 1, 6, 0, 64},          // shared: not kept across launches
            {"k", 0x12, 7, 0, 16},            // a function
            {"undefined", 1, 0, 0, 4}};
  return b;
}

const CubinVariable* find(const std::vector<CubinVariable>& vars, const std::string& name) {
  for (const auto& v : vars)
    if (v.name == name) return &v;
  return nullptr;
}

std::string error_of(const std::vector<unsigned char>& img) {
  try {
    cubin_variables(img);
  } catch (const CubinFormatError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the ELF reader finds global and constant objects, nothing else", "[harness-core]") {
  const auto vars = cubin_variables(sample().build());
  REQUIRE(vars.size() == 3);
  REQUIRE(find(vars, "g_counter"));
  CHECK(find(vars, "g_counter")->section == ".nv.global");
  CHECK(find(vars, "g_counter")->size == 4);
  CHECK(find(vars, "g_counter")->offset == 4);
  CHECK(find(vars, "g_tab"));
  REQUIRE(find(vars, "c_table"));
  CHECK(find(vars, "c_table")->constant());
  CHECK_FALSE(find(vars, "g_counter")->constant());
  CHECK_FALSE(find(vars, "sh_buf"));
  CHECK_FALSE(find(vars, "k"));
  CHECK_FALSE(find(vars, "undefined"));
}

TEST_CASE("the ELF reader rejects malformed images with a reason", "[harness-core]") {
  const auto good = sample().build();
  CHECK(error_of({}).find("shorter than an ELF header") != std::string::npos);
  auto img = good;
  img[0] = 'X';
  CHECK(error_of(img).find("no ELF magic") != std::string::npos);
  img = good;
  img[0] = 0x50; img[1] = 0xED; img[2] = 0x55; img[3] = 0xBA;
  CHECK(error_of(img).find("fatbinary") != std::string::npos);
  img = good;
  img[4] = 1;
  CHECK(error_of(img).find("64-bit") != std::string::npos);
  ElfBuilder b = sample();
  b.machine = 62;
  CHECK(error_of(b.build()).find("not CUDA") != std::string::npos);
  // Truncated anywhere after the header: never a read past the end.
  for (size_t cut = 64; cut < good.size(); cut += 7) {
    std::vector<unsigned char> part(good.begin(), good.begin() + static_cast<long>(cut));
    CHECK_FALSE(error_of(part).empty());
  }
  // A symbol whose extent lies outside its section.
  b = sample();
  b.syms.push_back({"g_big", 1, 4, 8, 4096});
  CHECK(error_of(b.build()).find("`g_big`") != std::string::npos);
  // A symbol naming a section that does not exist.
  b = sample();
  b.syms.push_back({"g_lost", 1, 99, 0, 4});
  CHECK(error_of(b.build()).find("names section 99") != std::string::npos);
  // A name index past the string table.
  img = good;
  const size_t shoff = img[40] | img[41] << 8;
  const size_t symtab_off = img[shoff + 3 * 64 + 24] | img[shoff + 3 * 64 + 25] << 8;
  img[symtab_off + 24 * 2] = 0xFF;   // symbol 2's st_name
  img[symtab_off + 24 * 2 + 1] = 0xFF;
  CHECK(error_of(img).find("past its string table") != std::string::npos);
  // A section header table pointing outside the file.
  img = good;
  img[40 + 6] = 0x10;
  CHECK(error_of(img).find("outside the file") != std::string::npos);
}

TEST_CASE("a cubin compiled by nvcc: every spelling of a kernel's state is found", "[cuda-compile]") {
  const char* path = std::getenv("AR_PROBE_CUBIN");
  REQUIRE(path);
  const auto vars = cubin_variables(ar::harness::read_file_bytes(path));
  INFO([&] {
    std::string s;
    for (const auto& v : vars) s += v.name + " " + v.section + " " + std::to_string(v.size) + "\n";
    return s;
  }());
  auto section_of = [&](const std::string& name) {
    const CubinVariable* v = find(vars, name);
    return v ? v->section : std::string("(missing)");
  };
  CHECK(section_of("g_plain") == ".nv.global");
  CHECK(section_of("g_pasted") == ".nv.global");            // CAT(g_, pasted)
  CHECK(section_of("static_counter") == ".nv.global");      // static __device__
  CHECK(section_of("g_init") == ".nv.global.init");
  CHECK(section_of("k_table").rfind(".nv.", 0) == 0);       // __device__ const: global or constant
  CHECK(section_of("c_table").rfind(".nv.constant", 0) == 0);
  CHECK(section_of("c_init").rfind(".nv.constant", 0) == 0);
  REQUIRE(find(vars, "k_table"));
  CHECK(find(vars, "k_table")->size == 16);
  CHECK(find(vars, "g_pasted")->size == 16);
  bool anonymous = false;
  for (const auto& v : vars) anonymous = anonymous || v.name.find("anon_counter") != std::string::npos;
  CHECK(anonymous);                                          // a mangled name in an anonymous namespace
  for (const auto& v : vars) CHECK(v.name.find("shared_tile") == std::string::npos);
}
