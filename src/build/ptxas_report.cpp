#include <regex>
#include <sstream>

#include "autoresearch/build/builder.h"

namespace ar {

// ptxas -v prints, per entry function:
//   ptxas info    : Compiling entry function 'ar_stage0' for 'sm_90'
//   ptxas info    : Function properties for ar_stage0
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 168 registers, used 1 barriers, 384 bytes cmem[0]
// Only the stage kernels matter (ar_plan runs once, outside timing).
void parse_ptxas_report(const std::string& text, BuildResult& r) {
  static const std::regex entry(R"(Compiling entry function '([^']+)')");
  static const std::regex props(R"(Function properties for (\S+))");
  static const std::regex spill(R"((\d+) bytes spill stores)");
  static const std::regex regs(R"(Used (\d+) registers)");
  std::istringstream in(text);
  std::string line, current;
  int max_regs = -1, spills = 0;
  bool any = false;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, entry) || std::regex_search(line, m, props)) {
      current = m[1];
      continue;
    }
    // ar_stage<i>, or a dispatch variant's ar_k<k>_stage<i>.
    bool stage = current.find("ar_stage") != std::string::npos ||
                 (current.find("ar_k") != std::string::npos && current.find("_stage") != std::string::npos);
    if (!stage) continue;
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

}  // namespace ar
