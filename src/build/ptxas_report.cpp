#include <algorithm>
#include <regex>
#include <sstream>

#include "autoresearch/build/builder.h"

namespace ar {

// ptxas -v prints, per entry function:
//   ptxas info    : Compiling entry function 'ar_stage0' for 'sm_90'
//   ptxas info    : Function properties for ar_stage0
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 168 registers, used 1 barriers, 384 bytes cmem[0]
// and, about a kernel, what it thinks costs speed:
//   ptxas info    : (C7520) Potential Performance Loss: wgmma.mma_async instructions are serialized due to
//                   program dependence on compiler-inserted WG.AR in divergent path in the function 'ar_stage0'
// (a wgmma pipeline ptxas serialised runs several times slower, and nothing else says so).
// Only the stage kernels matter (ar_plan runs once, outside timing).
namespace {
bool is_stage_kernel(const std::string& name) {   // ar_stage<i>, or a dispatch variant's ar_k<k>_stage<i>
  return name.find("ar_stage") != std::string::npos ||
         (name.find("ar_k") != std::string::npos && name.find("_stage") != std::string::npos);
}
}  // namespace

void parse_ptxas_report(const std::string& text, BuildResult& r) {
  static const std::regex entry(R"(Compiling entry function '([^']+)')");
  static const std::regex props(R"(Function properties for (\S+))");
  static const std::regex spill(R"((\d+) bytes spill stores)");
  static const std::regex regs(R"(Used (\d+) registers)");
  static const std::regex loss(R"(\((C\d+)\) Potential Performance Loss: (.*?)(?: in the function '([^']+)')?\s*$)");
  std::istringstream in(text);
  std::string line, current;
  int max_regs = -1, spills = 0;
  bool any = false;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, loss)) {   // names its kernel itself, wherever ptxas prints it
      const std::string kernel = m[3].matched ? m[3].str() : current;
      if (kernel.empty() || is_stage_kernel(kernel)) {
        std::string w = (kernel.empty() ? "" : kernel + ": ") + "(" + m[1].str() + ") " + m[2].str();
        if (std::find(r.ptxas_warnings.begin(), r.ptxas_warnings.end(), w) == r.ptxas_warnings.end())
          r.ptxas_warnings.push_back(std::move(w));
      }
      continue;
    }
    if (std::regex_search(line, m, entry) || std::regex_search(line, m, props)) {
      current = m[1];
      continue;
    }
    if (!is_stage_kernel(current)) continue;
    if (std::regex_search(line, m, spill)) {
      spills += std::stoi(m[1]);
      any = true;
    }
    if (std::regex_search(line, m, regs)) {
      max_regs = std::max(max_regs, std::stoi(m[1]));
      any = true;
    }
  }
  if (!any) return;
  if (max_regs >= 0) r.registers = max_regs;
  r.spill_bytes = spills;
}

nlohmann::json build_report_json(const BuildResult& r) {
  nlohmann::json j = {{"registers", r.registers ? nlohmann::json(*r.registers) : nlohmann::json()},
                      {"spills", r.spill_bytes ? nlohmann::json(*r.spill_bytes) : nlohmann::json()}};
  if (!r.ptxas_warnings.empty()) j["ptxas_warnings"] = r.ptxas_warnings;
  return j;
}

}  // namespace ar
