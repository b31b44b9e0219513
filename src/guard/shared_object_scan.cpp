// scan_shared_object and scan_objdump: a CPU candidate as the linker and the
// processor see it. The source scan reads what was written; this reads what was
// built, so a function reached through a header the scan does not read, a
// pasted name, a constructor in disguise or an instruction spelled as bytes
// shows up all the same.
#include <elf.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <regex>
#include <sstream>

#include "compiled_scan.h"
#include "elf_file.h"
#include "guard_rules.h"

namespace ar::guard_detail {

namespace {

// What the C runtime itself puts in .init_array and .fini_array (crtbeginS.o).
bool runtime_entry(const std::string& fn) {
  return fn == "frame_dummy" || fn == "__do_global_dtors_aux" || fn == "register_tm_clones" ||
         fn == "deregister_tm_clones";
}

bool relative_relocation(uint16_t machine, uint32_t type) {
  return (machine == EM_X86_64 && type == R_X86_64_RELATIVE) || (machine == EM_AARCH64 && type == R_AARCH64_RELATIVE);
}

class SharedObjectScan {
 public:
  SharedObjectScan(const ElfFile& elf, const std::string& name) : elf_(elf), name_(name) {}

  std::vector<GuardFinding> run() {
    imports();
    thread_local_storage();
    for (const char* array : {".preinit_array", ".init_array", ".fini_array"}) load_time_code(array);
    return std::move(out_);
  }

 private:
  void add(const char* rule, const std::string& excerpt) { out_.push_back({rule, name_, excerpt}); }

  void imports() {
    const ElfSection* dynsym = nullptr;
    for (const auto& s : elf_.sections())
      if (s.type == SHT_DYNSYM) dynsym = &s;
    if (!dynsym) return;  // a static object imports nothing
    std::string error;
    auto symbols = elf_.symbols(*dynsym, &error);
    if (!error.empty()) {
      add(kRuleCompiledInput, error);
      return;
    }
    for (const auto& sym : symbols) {
      if (!sym.undefined() || sym.name.empty()) continue;
      const std::string rule = rule_for_import(sym.name, false);
      if (rule.empty()) continue;
      std::string shown = readable_symbol(sym.name);
      if (shown.size() > 100) shown = shown.substr(0, 97) + "...";
      out_.push_back({rule, name_, "imports " + shown});
    }
  }

  void thread_local_storage() {
    for (const auto& seg : elf_.segments())
      if (seg.type == PT_TLS && seg.memsz > 0)
        add(kRuleStaticCache, std::to_string(seg.memsz) + " bytes of thread-local storage");
  }

  // Function names by address, from .symtab (kept: the build does not strip)
  // or, failing that, .dynsym.
  std::map<uint64_t, std::string> functions() {
    std::map<uint64_t, std::string> by_address;
    for (const auto& s : elf_.sections()) {
      if (s.type != SHT_SYMTAB && s.type != SHT_DYNSYM) continue;
      std::string error;
      for (const auto& sym : elf_.symbols(s, &error))
        if (sym.type == STT_FUNC && !sym.undefined()) by_address.emplace(sym.value, sym.name);
    }
    return by_address;
  }

  // Every entry of .init_array runs inside dlopen(), before any call the
  // harness checks; every .fini_array entry at dlclose(). An entry the C
  // runtime did not put there is a constructor: __attribute__((constructor)),
  // or the dynamic initialiser of a global object (_GLOBAL__sub_I_kernel.cpp).
  void load_time_code(const char* array) {
    const ElfSection* s = elf_.section(array);
    if (!s || s->size == 0) return;
    if (std::string(array) == ".preinit_array") {
      add(kRuleConstructor, std::string(array) + " in a shared object");
      return;
    }
    // In a position-independent object each slot is filled by a relative
    // relocation whose addend is the function's address (also written in place).
    std::map<uint64_t, uint64_t> target;
    for (const auto& r : elf_.sections()) {
      if (r.type != SHT_RELA) continue;
      std::string error;
      for (const auto& rel : elf_.relocations(r, &error))
        if (relative_relocation(elf_.machine(), rel.type) && rel.offset >= s->addr && rel.offset < s->addr + s->size)
          target[rel.offset] = static_cast<uint64_t>(rel.addend);
    }
    const std::string_view bytes = elf_.contents(*s);
    const auto names = functions();
    for (uint64_t slot = 0; slot + 8 <= s->size; slot += 8) {
      uint64_t fn = 0;
      auto it = target.find(s->addr + slot);
      if (it != target.end()) fn = it->second;
      else if (slot + 8 <= bytes.size()) std::memcpy(&fn, bytes.data() + slot, 8);
      if (fn == 0 || fn == ~uint64_t{0}) continue;   // empty or the -1 terminator of old toolchains
      auto name = names.find(fn);
      const std::string shown = name == names.end() ? "a function at 0x" + hex(fn) : name->second;
      if (name != names.end() && runtime_entry(name->second)) continue;
      add(kRuleConstructor, std::string(array) + " runs " + shown);
    }
  }

  static std::string hex(uint64_t v) {
    char text[24];
    std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(v));
    return text;
  }

  const ElfFile& elf_;
  std::string name_;
  std::vector<GuardFinding> out_;
};

}  // namespace

std::vector<GuardFinding> scan_shared_object(const std::string& bytes, const std::string& name) {
  std::string error;
  auto elf = ElfFile::parse(bytes, &error);
  if (!elf) return {{kRuleCompiledInput, name, error}};
  if (elf->file_type() != ET_DYN) return {{kRuleCompiledInput, name, "not a shared object"}};
  return SharedObjectScan(*elf, name).run();
}

// objdump -d: "    1139:\trdtsc" (with --no-show-raw-insn) or
// "    1139:\t0f 31                \trdtsc"; functions start "0000000000001139 <ar_kernel>:".
std::vector<GuardFinding> scan_objdump(const std::string& text, const std::string& name) {
  static const std::regex kFunction(R"(^[0-9a-f]+ <([^>]+)>:)");
  static const std::regex kInstruction(R"(^\s*[0-9a-f]+:\t(?:[0-9a-f]{2}(?: [0-9a-f]{2})*\s*\t)?(\S+)\s*(.*)$)");
  std::vector<GuardFinding> out;
  std::istringstream in(text);
  std::string line, function = "?";
  for (int n = 1; std::getline(in, line); ++n) {
    std::smatch m;
    if (std::regex_search(line, m, kFunction)) {
      function = m[1];
      continue;
    }
    if (!std::regex_match(line, m, kInstruction)) continue;
    const std::string op = m[1], args = m[2];
    const char* rule = nullptr;
    if (op == "rdtsc" || op == "rdtscp" || op == "rdpmc") rule = kRuleTimer;
    else if (op == "syscall" || op == "sysenter" || (op == "int" && args.find("0x80") != std::string::npos)) rule = kRuleIo;
    if (!rule) continue;
    out.push_back({rule, name + ":" + std::to_string(n), function + ": " + op + (args.empty() ? "" : " " + args)});
  }
  return out;
}

}  // namespace ar::guard_detail
