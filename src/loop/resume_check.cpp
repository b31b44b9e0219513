#include "autoresearch/loop/resume_check.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "autoresearch/util/errors.h"

namespace ar {

namespace {

double number_or(const nlohmann::json& j, const char* key, double fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

}  // namespace

// Plateau and --max-hours count from the start of each session, and an
// interrupted or failed run has work left, so only the goal and --max-iters can
// hold across a resume.
bool resume_would_stop_at_once(const LogContents& log, const RunConfig& cfg, std::string* why, int* exit_code) {
  if (log.lines.empty()) return false;
  const nlohmann::json& last = log.lines.back();
  if (last.value("type", "") != "final") return false;
  const std::string run = log.header.value("run_id", "RUN");
  int candidates = 0, keeps = 0;
  for (const auto& line : log.lines) {
    if (line.value("type", "") != "candidate") continue;
    candidates = std::max(candidates, static_cast<int>(number_or(line, "id", 0)));
    keeps += line.value("decision", "") == "keep";
  }

  const double best = number_or(last, "speedup_vs_baseline", 1);
  double goal = 0;
  try {
    goal = parse_goal(cfg.goal);
  } catch (const Fatal&) {
    return false;   // the resume's own validation reports it
  }
  if (keeps > 0 && best >= goal) {
    if (why)
      *why = fmt::format("run {} has reached its goal already ({:.3f}x vs the start, goal {:.2f}x); to go on, "
                         "raise it, e.g. autoresearch run --resume {} --goal {:.1f}x",
                         run, best, goal, run, std::ceil(std::max(goal * 1.5, best * 1.1) * 10) / 10);
    if (exit_code) *exit_code = kExitOk;
    return true;
  }
  if (cfg.max_iters > 0 && candidates >= cfg.max_iters) {
    if (why)
      *why = fmt::format("run {} has tried {} candidates, and --max-iters is {}; to go on, raise it: "
                         "e.g. autoresearch run --resume {} --max-iters {}",
                         run, candidates, cfg.max_iters, run, candidates + std::max(cfg.max_iters, 10));
    if (exit_code) *exit_code = kExitStopped;
    return true;
  }
  return false;
}

}  // namespace ar
