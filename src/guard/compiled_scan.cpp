// scan_compiled_code: reads the build's outputs and applies the scans of
// compiled_scan.h that fit the backend.
#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>

#include "autoresearch/guard/guard.h"
#include "compiled_scan.h"
#include "guard_rules.h"

namespace ar {
namespace {

namespace fs = std::filesystem;

// Compiled artifacts are at most tens of MiB (a SASS dump of a large kernel).
constexpr std::uintmax_t kMaxBytes = std::uintmax_t{256} << 20;

bool read_file(const fs::path& p, std::string* out, std::string* error) {
  std::error_code ec;
  const auto size = fs::file_size(p, ec);
  if (ec) {
    *error = "cannot read " + p.filename().string() + ": " + ec.message();
    return false;
  }
  if (size > kMaxBytes) {
    *error = p.filename().string() + " is " + std::to_string(size >> 20) + " MiB, more than the scan reads";
    return false;
  }
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  if (!in && !in.eof()) {
    *error = "cannot read " + p.filename().string();
    return false;
  }
  *out = s.str();
  return true;
}

}  // namespace

GuardResult scan_compiled_code(const CompiledCode& code, Backend backend) {
  std::vector<GuardFinding> findings;
  auto add = [&](std::vector<GuardFinding> more) {
    findings.insert(findings.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  };
  auto scan = [&](const fs::path& p, auto&& scanner) {
    if (p.empty()) return;
    std::string text, error;
    if (!read_file(p, &text, &error)) {
      findings.push_back({guard_detail::kRuleCompiledInput, p.filename().string(), error});
      return;
    }
    add(scanner(text, p.filename().string()));
  };

  // A binary without the ELF magic cannot be loaded at all (dlopen and
  // cuModuleLoad refuse it, a load_error); the compilers never write one, the
  // loop's tests do (a fake compiler's text file). Leave it to the harness.
  if (!code.binary.empty()) {
    std::ifstream in(code.binary, std::ios::binary);
    char magic[4] = {};
    in.read(magic, 4);
    if (in.gcount() == 4 && !(magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F')) {
      CompiledCode rest = code;
      rest.binary.clear();
      return scan_compiled_code(rest, backend);
    }
  }

  if (backend == Backend::Cuda) {
    // The PTX first: it names source-level intent (%globaltimer, vprintf) most
    // plainly, and it exists even when ptxas refused the candidate.
    scan(code.ptx, guard_detail::scan_ptx);
    scan(code.binary, guard_detail::scan_cubin);
    scan(code.disassembly, guard_detail::scan_sass);
  } else {
    scan(code.binary, guard_detail::scan_shared_object);
    scan(code.disassembly, guard_detail::scan_objdump);
  }
  // The reason names the first finding: the one that says most about intent
  // (a thread, a clock) before a merely unknown import the same cheat pulls in
  // (std::thread brings std::__exception_ptr along).
  auto rank = [](const std::string& rule) {
    static const char* kOrder[] = {guard_detail::kRuleHostThread,   guard_detail::kRuleTimer,
                                   guard_detail::kRuleStreamGraph,  guard_detail::kRuleIo,
                                   guard_detail::kRuleStaticCache,  guard_detail::kRuleConstructor,
                                   guard_detail::kRuleCudaRuntime,  guard_detail::kRuleSpecialRegister,
                                   guard_detail::kRuleCompiledInput};
    for (size_t i = 0; i < std::size(kOrder); ++i)
      if (rule == kOrder[i]) return i;
    return std::size(kOrder);   // import: last
  };
  std::stable_sort(findings.begin(), findings.end(),
                   [&](const GuardFinding& a, const GuardFinding& b) { return rank(a.rule) < rank(b.rule); });
  GuardResult r;
  r.findings = std::move(findings);
  r.pass = r.findings.empty();
  return r;
}

}  // namespace ar
