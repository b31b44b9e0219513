// scan_cubin: the cubin's symbol table. A cubin built whole-program (-cubin
// without -rdc) defines everything it uses except what the driver itself
// provides at load time; an undefined function is a call out of the module
// (printf's vprintf, the device heap's malloc, the device runtime's launches),
// whatever the source or PTX called it.
#include <elf.h>

#include "compiled_scan.h"
#include "elf_file.h"
#include "guard_rules.h"

namespace ar::guard_detail {

namespace {
constexpr uint16_t kMachineCuda = 190;   // EM_CUDA
}

std::vector<GuardFinding> scan_cubin(const std::string& bytes, const std::string& name) {
  std::string error;
  auto elf = ElfFile::parse(bytes, &error);
  if (!elf) return {{kRuleCompiledInput, name, error}};
  if (elf->machine() != kMachineCuda)
    return {{kRuleCompiledInput, name, "not a cubin (ELF machine " + std::to_string(elf->machine()) + ")"}};
  std::vector<GuardFinding> out;
  for (const auto& s : elf->sections()) {
    if (s.type != SHT_SYMTAB) continue;
    auto symbols = elf->symbols(s, &error);
    if (!error.empty()) return {{kRuleCompiledInput, name, error}};
    for (const auto& sym : symbols) {
      if (!sym.undefined() || sym.name.empty()) continue;
      const std::string rule = rule_for_import(sym.name, true);
      if (rule.empty()) continue;
      out.push_back({rule, name, std::string("undefined symbol ") + sym.name});
    }
  }
  return out;
}

}  // namespace ar::guard_detail
