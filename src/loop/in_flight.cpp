// The candidate in flight, on disk. The log gets a candidate's line only when
// it is judged; a run killed with -9 (or by a power cut) mid-candidate would
// leave no trace of it, and the resume would silently number the next one the
// same. The marker (written before judging, removed after the log line) lets
// the resume record it as abandoned, with the diff the agent had made.
#include <fmt/format.h>

#include "autoresearch/util/fs.h"
#include "steps.h"

namespace fs = std::filesystem;

namespace ar {

namespace {
fs::path marker(const RunContext& ctx) { return ctx.run_dir / "in_flight.json"; }
}  // namespace

void mark_in_flight(const RunContext& ctx, int id, const nlohmann::json& record) {
  if (ctx.run_dir.empty()) return;
  nlohmann::json m = {{"id", id}};
  for (const char* k : {"started", "agent", "model", "idea", "tunables", "base", "phase", "files", "diff"})
    if (record.contains(k)) m[k] = record[k];
  try {
    write_file_atomic(marker(ctx), m.dump() + "\n");
  } catch (const std::exception&) {
    // A marker that cannot be written loses only this safety net; the log
    // line that follows reports a disk problem loudly enough.
  }
}

void clear_in_flight(const RunContext& ctx) {
  std::error_code ec;
  fs::remove(marker(ctx), ec);
}

void log_abandoned_candidate(RunContext& ctx, int last_logged_id) {
  std::error_code ec;
  if (!fs::exists(marker(ctx), ec)) return;
  nlohmann::json m;
  try {
    m = nlohmann::json::parse(read_file(marker(ctx)));
  } catch (const std::exception&) {
    clear_in_flight(ctx);
    return;
  }
  int id = m.value("id", 0);
  if (id > last_logged_id) {
    nlohmann::json line = m;
    line["type"] = "candidate";
    line["decision"] = decision_name(Decision::Abandoned);
    line["reason"] = "the run was killed while this candidate was judged (kill -9, OOM or power loss); "
                     "abandoned on resume";
    line["finished"] = ctx.world.clock->now_iso8601();
    line["commit"] = nullptr;
    // The diff the candidate was judged with, else what the worktree holds
    // (a kill while the agent was still editing).
    if (!m.contains("diff") || m["diff"].get<std::string>().empty()) {
      try {
        line["diff"] = ctx.git->diff();
        line["files"] = ctx.git->changed_files(ctx.package_prefix);
      } catch (const std::exception& e) {
        line["diff_error"] = e.what();
      }
    }
    ctx.log->append(line);
    ctx.out().event(fmt::format("#{} abandoned — {} — the run was killed while it was judged", id,
                                m.value("idea", std::string("?"))),
                    Tone::Warn);
    ctx.last_id = std::max(ctx.last_id, id);
  }
  clear_in_flight(ctx);
}

}  // namespace ar
