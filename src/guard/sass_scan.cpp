// scan_sass: the machine code itself, as cuobjdump -sass or nvdisasm print it.
// The last word on clocks: whatever the PTX said, a clock read is an S2R,
// CS2R or S2UR of a clock or global-timer special register, e.g.
//         /*0020*/                   CS2R R2, SR_CLOCKLO ;
//         /*0090*/              @P0  S2UR UR4, SR_GLOBALTIMERLO ;
#include <regex>
#include <sstream>

#include "compiled_scan.h"
#include "guard_rules.h"

namespace ar::guard_detail {

std::vector<GuardFinding> scan_sass(const std::string& sass, const std::string& name) {
  static const std::regex kFunction(R"(Function\s*:\s*(\S+))");
  static const std::regex kClockRead(R"(\b(S2R|CS2R|S2UR)\b[^;]*\b(SR_CLOCK(LO|HI)?|SR_GLOBALTIMER(LO|HI)?|SR_PM[0-9]\w*)\b)");
  std::vector<GuardFinding> out;
  std::istringstream in(sass);
  std::string line, function = "?";
  for (int n = 1; std::getline(in, line); ++n) {
    std::smatch m;
    if (std::regex_search(line, m, kFunction)) {
      function = m[1];
      continue;
    }
    if (!std::regex_search(line, m, kClockRead)) continue;
    std::string instruction = m.str(0);
    out.push_back({kRuleTimer, name + ":" + std::to_string(n), function + ": " + instruction});
  }
  return out;
}

}  // namespace ar::guard_detail
