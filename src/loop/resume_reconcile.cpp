// On resume the branch and the log are made to agree before anything else.
// A keep is a commit followed by its log line; a run stopped between the two
// (a failed write, a kill -9) leaves a commit the log does not know. Its work
// passed every check (a commit is made only after the confirmation and the
// sanitizer), so it is logged as recovered, its numbers taken from its commit
// message, and reported; the final interleaved re-measure then judges the best
// afresh. Keep lines whose commit is not on the branch are reported too.
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "steps.h"

namespace ar {

namespace {

std::string field(const std::string& message, const std::string& key) {
  size_t at = message.find("\n" + key + ": ");
  if (at == std::string::npos) return "";
  at += key.size() + 3;
  size_t end = message.find('\n', at);
  return message.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace

std::vector<nlohmann::json> reconcile_branch_with_log(RunContext& ctx, const std::vector<nlohmann::json>& lines) {
  std::map<std::string, int> logged;   // commit sha -> keep id
  for (const auto& l : lines)
    if (l.value("type", "") == "candidate" && l.value("decision", "") == "keep" && l.contains("commit") &&
        l["commit"].is_string())
      logged[l["commit"].get<std::string>()] = l.value("id", 0);

  std::vector<nlohmann::json> added;
  const std::regex marker("run: (\\S+) candidate (\\d+)");
  auto commits = ctx.git->commits(ctx.base_commit + ".." + ctx.branch);
  std::set<std::string> on_branch;
  for (const auto& c : commits) {
    on_branch.insert(c.sha);
    if (logged.count(c.sha)) continue;
    std::smatch m;
    int id = 0;
    if (std::regex_search(c.message, m, marker) && m[1] == ctx.run_id) id = std::stoi(m[2]);
    nlohmann::json line = {{"type", "candidate"},
                           {"id", id},
                           {"decision", decision_name(Decision::Keep)},
                           {"recovered", true},
                           {"commit", c.sha},
                           {"idea", field("\n" + c.message, "idea")},
                           {"agent", field("\n" + c.message, "agent")},
                           {"finished", ctx.world.clock->now_iso8601()},
                           {"reason", "recovered on resume: the commit is on the branch but its log line was never "
                                      "written (a failed log write, or the run was killed between the two)"},
                           {"commit_message", c.message}};
    if (auto t = ctx.git->show(c.sha, ctx.package_prefix + "/" + ctx.manifest.tunables_file)) {
      try {
        line["tunables"] = nlohmann::json::parse(*t);
      } catch (const std::exception&) {
      }
    }
    ctx.log->append(line);
    ctx.out().event(fmt::format("#{} recovered — commit {} was on the branch without its log line; logged now",
                                id, c.sha.substr(0, 10)),
                    Tone::Warn);
    added.push_back(line);
  }
  for (const auto& [sha, id] : logged)
    if (!on_branch.count(sha))
      ctx.out().event(fmt::format("keep #{}: its commit {} is not on {} (the branch was rewritten by hand?); the "
                                  "branch's head is the incumbent",
                                  id, sha.substr(0, 10), ctx.branch),
                      Tone::Warn);
  return added;
}

}  // namespace ar
