// Pieces both loops share (the single-GPU one in run_loop.cpp, the multi-GPU
// one in multi_gpu_loop.cpp): the stop rules, what the agent is told, how many
// compilers run, and which build folders stay.
#include <thread>

#include <fmt/format.h>

#include "autoresearch/loop/plateau.h"
#include "autoresearch/util/errors.h"
#include "steps.h"

namespace fs = std::filesystem;

namespace ar {

int build_jobs(const RunContext& ctx) {
  // CPU packages compile and measure one after the other, never at once, or
  // the compiler would steal the cores the timings run on.
  if (ctx.manifest.backend == Backend::Cpu) return 1;
  if (ctx.cfg.build_jobs > 0) return ctx.cfg.build_jobs;
  int cores = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, std::min(8, cores - 2));
}

// Why the run should stop now, or empty.
std::string budget_reason(RunContext& ctx, int session_first_id, bool count_iters) {
  if (ctx.vs_baseline >= ctx.goal && ctx.keeps > 0) return fmt::format("goal {:.2f}x reached", ctx.goal);
  if (count_iters && ctx.cfg.max_iters > 0 && ctx.last_id >= ctx.cfg.max_iters)
    return fmt::format("--max-iters {} reached", ctx.cfg.max_iters);
  if (ctx.cfg.max_hours > 0 && ctx.world.clock->now_seconds() - ctx.started_at >= ctx.cfg.max_hours * 3600)
    return fmt::format("--max-hours {} reached", ctx.cfg.max_hours);
  if (ctx.cfg.max_tokens_total > 0 && ctx.tokens_total >= ctx.cfg.max_tokens_total)
    return fmt::format("--max-tokens-total {} reached ({} tokens spent)", ctx.cfg.max_tokens_total, ctx.tokens_total);
  if (ctx.max_cost_usd > 0 && ctx.cost_total >= ctx.max_cost_usd)
    return fmt::format("--max-cost ${:.2f} reached (${:.2f} spent)", ctx.max_cost_usd, ctx.cost_total);
  int since_keep = ctx.last_id - std::max(ctx.last_keep_id, session_first_id - 1);
  return plateau_reason(ctx.cfg.plateau, ctx.untried_at_keep, since_keep);
}

// Build folders: kept candidates are copied out at keep; discards go at once;
// only the last few failures stay, for a human to look at.
void clean_build_dir(RunContext& ctx, std::deque<fs::path>& failures, int id, Decision decision) {
  fs::path dir = ctx.builds_dir() / std::to_string(id);
  std::error_code ec;
  if (decision == Decision::Keep || decision == Decision::Discard || decision == Decision::Interrupted) {
    fs::remove_all(dir, ec);
    return;
  }
  failures.push_back(dir);
  while (static_cast<int>(failures.size()) > ctx.cfg.keep_failed_builds) {
    fs::remove_all(failures.front(), ec);
    failures.pop_front();
  }
}

AgentContext agent_context_for(RunContext& ctx, int next_id) {
  AgentContext a;
  a.manifest = &ctx.manifest;
  a.incumbent_tunables = ctx.incumbent.tunables;
  a.incumbent_id = ctx.incumbent.candidate_id;
  a.incumbent_source_hash = ctx.incumbent.source_hash;
  a.incumbent_quick_geomean_us = ctx.incumbent_quick_us;
  size_t from = ctx.history.size() > 50 ? ctx.history.size() - 50 : 0;
  a.history.assign(ctx.history.begin() + from, ctx.history.end());
  a.worktree = ctx.worktree;
  a.package_dir = ctx.package_dir;
  a.context_dir = ctx.context_dir();
  a.iteration = std::max(next_id, ctx.last_id) + 1;
  return a;
}

int log_failure_exit(RunContext& ctx, const std::string& why) {
  ctx.out().clear_status();
  ctx.out().event(fmt::format("stopped: the experiment log {} could not be written ({}). Fix the disk or the "
                              "file, then continue with `autoresearch run --resume {}`",
                              ctx.log->file().string(), why, ctx.run_id),
                  Tone::Bad);
  return kExitInfrastructure;
}

}  // namespace ar
