#pragma once
// A run aimed at one class of workloads (--focus): the gain, the noise bar and the
// goal are judged on the geomean of the focus workloads, while every timed workload
// is still measured, verified and held to the regression margin. A change that
// speeds one class (FP8 caches, 16 heads) by 10% moves a geomean over 13 workloads
// by under 1%: without a focus the keep rule's min-gain cannot see it.
#include <string>
#include <vector>

namespace ar {

// Does `workload` match one of the patterns (an exact name, or a glob: * ? [...])?
bool in_focus(const std::vector<std::string>& patterns, const std::string& workload);

// The names among `workloads` that the patterns match, in their order.
std::vector<std::string> focus_names(const std::vector<std::string>& patterns,
                                     const std::vector<std::string>& workloads);

// Why the patterns cannot aim a run over these timed workloads (one that matches none
// of them, or an empty pattern), or "" when they can.
std::string focus_problem(const std::vector<std::string>& patterns, const std::vector<std::string>& timed);

// "fp8_b128_32k, fp8_b64_32k (2 of 13 timed workloads)": the focus as a run reports it.
std::string focus_text(const std::vector<std::string>& patterns, const std::vector<std::string>& timed);

}  // namespace ar
