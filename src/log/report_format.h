#pragma once
// How the report spells its numbers, shared by the text, Markdown, CSV and
// HTML renderers so that each figure reads the same in every format.
#include <array>
#include <optional>
#include <string>

#include "autoresearch/log/report_model.h"

namespace ar::report {

std::string micros(std::optional<double> us);                  // "28.90", "1380.4", "-"
std::string ratio(std::optional<double> x);                    // "1.245x", "-"
std::string ratio_ci(const std::optional<std::array<double, 2>>& ci);   // "1.244–1.246", ""
std::string rate(std::optional<double> v);                     // TFLOP/s and GB/s
std::string percent(double share);                             // 0.123 -> "12.3%"
std::string duration(double seconds);                          // "3m 07s", "2h 05m", "41.2s"
// "12.0% compute" of a roofline position, "-" when unknown.
std::string roofline_cell(const std::optional<RooflinePosition>& p);
// start -> best for one per-workload figure: "19.7 → 22.7".
std::string start_to_best(const std::string& start, const std::string& best);

// "1.245x vs the start [95% CI 1.245–1.245] (re-measured at the end)": the result as `log` states it.
std::string result_sentence(const Report& r);
// "goal 2.00x not reached; stopped: plateau: ..." / "still running".
std::string ending_sentence(const Report& r);
// "70 candidates, 2 kept (2.9%)".
std::string keep_sentence(const Report& r);
// "tokens 1,234 in, 567 out; cost $0.12 (estimated)" / "no model calls (the tuner)".
std::string cost_sentence(const Report& r);

// "candidate #7" / "the start".
std::string winner_name(const ReportWinner& w);
// The winner's gain over the run's best on its workload: "1.042x" / "-".
std::string winner_gain(const ReportWinner& w);
// "on 3 of 12 workloads a verified candidate beat the best (by up to 4.2%, on b1_32k)".
std::string winners_sentence(const Report& r);
// "no time in this log for: agent (proposing), sanitizer (...)" / "".
std::string missing_phases_sentence(const Report& r);

}  // namespace ar::report
