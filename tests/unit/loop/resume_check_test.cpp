// resume_would_stop_at_once: a resume of a run whose stop reason still holds
// stops before re-measuring anything (issue 8).
#include "autoresearch/loop/resume_check.h"

#include "autoresearch/util/errors.h"
#include "catch.h"

using namespace ar;
using nlohmann::json;

namespace {

LogContents finished(const std::string& stop_reason, double speedup, int candidates, bool kept = true) {
  LogContents log;
  log.header = {{"type", "header"}, {"version", 1}, {"run_id", "k-t"}};
  for (int id = 1; id <= candidates; ++id)
    log.lines.push_back({{"type", "candidate"}, {"id", id}, {"decision", kept && id == 1 ? "keep" : "discard"}});
  log.lines.push_back({{"type", "final"}, {"stop_reason", stop_reason}, {"speedup_vs_baseline", speedup}});
  return log;
}

RunConfig config(const std::string& goal, int max_iters) {
  RunConfig c;
  c.goal = goal;
  c.max_iters = max_iters;
  return c;
}

}  // namespace

TEST_CASE("a goal already reached stops a resume at once, unless it is raised") {
  auto log = finished("goal 1.50x reached", 1.62, 4);
  std::string why;
  int code = -1;
  CHECK(resume_would_stop_at_once(log, config("1.5x", 0), &why, &code));
  CHECK(code == kExitOk);
  CHECK(why.find("reached its goal already (1.620x vs the start, goal 1.50x)") != std::string::npos);
  CHECK(why.find("autoresearch run --resume k-t --goal") != std::string::npos);
  CHECK_FALSE(resume_would_stop_at_once(log, config("2x", 0), &why));
}

TEST_CASE("--max-iters reached stops a resume at once, unless it is raised") {
  auto log = finished("--max-iters 30 reached", 1.1, 30);
  std::string why;
  int code = -1;
  CHECK(resume_would_stop_at_once(log, config("2x", 30), &why, &code));
  CHECK(code == kExitStopped);
  CHECK(why.find("tried 30 candidates, and --max-iters is 30") != std::string::npos);
  CHECK(why.find("--max-iters 60") != std::string::npos);
  CHECK_FALSE(resume_would_stop_at_once(log, config("2x", 40), &why));
  CHECK_FALSE(resume_would_stop_at_once(log, config("2x", 0), &why));
}

TEST_CASE("an interrupted run, a plateau and a run without a final line go on") {
  std::string why;
  CHECK_FALSE(resume_would_stop_at_once(finished("interrupted by a signal", 1.1, 5), config("2x", 0), &why));
  // The plateau counts from the start of a session: a resume gets a fresh one.
  CHECK_FALSE(resume_would_stop_at_once(finished("plateau: 60 candidates without a keep", 1.1, 61), config("2x", 0),
                                        &why));
  auto log = finished("goal 1.50x reached", 1.62, 4);
  log.lines.push_back({{"type", "resume"}});
  CHECK_FALSE(resume_would_stop_at_once(log, config("1.5x", 0), &why));
  // Nothing kept: a speedup of 1 reaches no goal.
  CHECK_FALSE(resume_would_stop_at_once(finished("--max-iters 3 reached", 1.0, 3, false), config("1.1x", 0), &why));
}
