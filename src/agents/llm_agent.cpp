#include "autoresearch/agents/llm_agent.h"

#include <sstream>

#include <fmt/format.h>

#include "autoresearch/agents/context_pack.h"
#include "autoresearch/core/manifest.h"
#include "autoresearch/llm/llm_client.h"
#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"
#include "autoresearch/util/redact.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

constexpr size_t kAnswerExcerpt = 6000;   // of the last answer, into the log

std::string excerpt(const std::string& s) {
  return s.size() <= kAnswerExcerpt ? s : s.substr(0, kAnswerExcerpt) + "\n... (" + std::to_string(s.size()) + " bytes)";
}

AgentCall call_of(const LlmResponse& r) {
  AgentCall c;
  c.tokens_in = r.usage.input_tokens;
  c.tokens_out = r.usage.output_tokens;
  c.cost_usd = r.cost_usd;
  c.cost_estimated = r.cost_estimated || r.usage.estimated;
  c.seconds = r.latency_s;
  c.attempts = r.attempts;
  c.finish = r.finish_reason;
  c.model = r.model;
  return c;
}

std::string task_prompt(const ContextPack& pack) {
  return pack.render() +
         "# Your answer\n\n"
         "One line `IDEA: <one sentence>`, then the edit blocks (the format is in the rules above), and nothing "
         "that is not needed. Edit only the editable files, against the current best source shown above.\n";
}

}  // namespace

std::string llm_system_prompt() {
  return "You are an expert GPU kernel engineer working inside autoresearch, a loop that makes a kernel faster and "
         "keeps a change only when an independent oracle verifies it on every workload and an interleaved, "
         "cache-flushed measurement proves it faster. You propose one change at a time. Cheating (special cases, "
         "state kept between calls, skipped work, lowered precision, touching the harness) is always caught and "
         "wastes the attempt. Answer in the exact edit format the rules describe.";
}

std::string answer_idea(const std::string& answer) {
  std::istringstream in(answer);
  std::string line;
  while (std::getline(in, line)) {
    size_t at = line.find("IDEA:");
    if (at == std::string::npos) continue;
    std::string idea = line.substr(at + 5);
    for (const char* junk : {"**", "__", "`"})
      for (size_t p = idea.find(junk); p != std::string::npos; p = idea.find(junk)) idea.erase(p, std::string(junk).size());
    size_t b = idea.find_first_not_of(" \t");
    size_t e = idea.find_last_not_of(" \t\r");
    idea = b == std::string::npos ? "" : idea.substr(b, e - b + 1);
    if (idea.size() > 300) idea = idea.substr(0, 297) + "...";
    if (!idea.empty()) return idea;
  }
  return "";
}

LlmAgent::LlmAgent(std::unique_ptr<LlmClient> client, LlmAgentSettings s, const std::atomic<bool>* cancel)
    : client_(std::move(client)), s_(std::move(s)), cancel_(cancel) {}

LlmAgent::~LlmAgent() = default;

std::vector<Proposal> LlmAgent::propose(const AgentContext& ctx, int) {
  Proposal p;
  p.agent = name();
  p.model = client_->settings().model;
  p.base_id = ctx.incumbent_id;
  p.base_tunables = ctx.incumbent_tunables;
  p.tunables = ctx.incumbent_tunables;
  if (!ctx.pack) throw std::logic_error("the llm agent needs the context pack");
  ctx.pack->write_dir(ctx.context_dir);

  const Manifest& m = *ctx.manifest;
  std::vector<std::string> editable = m.editable;
  if (std::find(editable.begin(), editable.end(), m.tunables_file) == editable.end()) editable.push_back(m.tunables_file);
  EditLimits limits;
  limits.max_answer_bytes = s_.max_answer_bytes;
  auto current = [&](const std::string& rel) -> std::optional<std::string> {
    std::error_code ec;
    if (!fs::is_regular_file(ctx.package_dir / rel, ec)) return std::nullopt;
    return read_file(ctx.package_dir / rel);
  };

  LlmRequest req;
  req.system = llm_system_prompt();
  req.messages.push_back({"user", task_prompt(*ctx.pack)});
  req.cancel = cancel_;
  write_file_atomic(ctx.context_dir / "prompt.md", "# system\n\n" + req.system + "\n\n# user\n\n" + req.messages[0].content);

  nlohmann::json rounds = nlohmann::json::array();
  auto fail = [&](AgentFailure::Kind kind, const std::string& why) {
    p.failure = AgentFailure{kind, why};
    p.detail["rounds"] = rounds;
    return std::vector<Proposal>{p};
  };
  for (int round = 0;; ++round) {
    LlmResponse r;
    try {
      r = client_->complete(req);
    } catch (const LlmError& e) {
      AgentCall c;
      c.finish = std::string("error: ") + std::string(to_string(e.kind()));
      c.attempts = e.attempts();
      c.model = p.model;
      p.calls.push_back(c);
      std::string what = redact_secrets(e.what());
      rounds.push_back({{"error", what}, {"kind", to_string(e.kind())}});
      if (e.kind() == LlmErrorKind::cancelled) return fail(AgentFailure::Kind::Output, "interrupted while the model answered");
      if (e.stops_run()) return fail(AgentFailure::Kind::Fatal, what);
      return fail(AgentFailure::Kind::Unavailable, "the LLM endpoint did not answer: " + what);
    }
    p.calls.push_back(call_of(r));
    nlohmann::json rec = {{"finish", r.finish_reason}, {"answer", redact_secrets(excerpt(r.text))},
                          {"tokens_in", r.usage.input_tokens}, {"tokens_out", r.usage.output_tokens}};
    if (!r.request_id.empty()) rec["request_id"] = r.request_id;
    if (r.truncated) {
      rounds.push_back(rec);
      return fail(AgentFailure::Kind::Output,
                  fmt::format("the answer was cut off at the output limit (finish reason '{}'); raise "
                              "--llm-max-output-tokens or ask for smaller edits",
                              r.raw_finish_reason.empty() ? r.finish_reason : r.raw_finish_reason));
    }
    if (r.text.find_first_not_of(" \t\r\n") == std::string::npos) {
      rounds.push_back(rec);
      return fail(AgentFailure::Kind::Output, "the model answered with nothing");
    }
    ParsedEdits parsed = parse_edit_blocks(r.text, limits);
    AppliedEdits applied;
    if (parsed.problems.empty()) applied = apply_edit_blocks(parsed.blocks, current, editable, s_.package_prefix, limits);
    // A new tunables file must name tunables and allowed values; the model hears why not.
    if (parsed.problems.empty() && applied.ok() && applied.files.count(m.tunables_file)) {
      try {
        parse_tunables_text(m, applied.files.at(m.tunables_file), m.tunables_file);
      } catch (const Fatal& e) {
        applied.failures.push_back({m.tunables_file, 0, e.what()});
      }
    }
    bool usable = parsed.problems.empty() && applied.ok() && !applied.files.empty();
    if (usable) {
      rounds.push_back(rec);
      p.files = applied.files;
      p.idea = answer_idea(r.text);
      p.detail["rounds"] = rounds;
      return {p};
    }
    std::string feedback = parsed.problems.empty() && applied.ok() && applied.files.empty()
                               ? "Your edits change nothing: the files would be identical. Propose a real change."
                               : describe_failures(applied, parsed);
    rec["feedback"] = feedback;
    rounds.push_back(rec);
    if (round >= s_.edit_retries) {
      std::string first = feedback.substr(0, feedback.find('\n'));
      return fail(AgentFailure::Kind::Output,
                  fmt::format("the edits did not apply after {} answer(s): {}", round + 1, first));
    }
    req.messages.push_back({"assistant", r.text});
    req.messages.push_back({"user", feedback});
  }
}

}  // namespace ar
