// The context pack mid-run: what the driver knows about the incumbent, the
// history and the machine, put in the form text agents read.
#include <fmt/format.h>

#include "autoresearch/agents/context_assembly.h"
#include "autoresearch/loop/profile.h"
#include "steps.h"

namespace ar {

std::string profile_artifact(RunContext& ctx, const std::filesystem::path& artifact, std::string* why) {
  if (ctx.manifest.backend != Backend::Cuda) {
    if (why) why->clear();
    return "";
  }
  ctx.out().status(ctx.status_prefix() + " profiling the best kernel with ncu");
  ProfileRequest rq;
  rq.manifest = &ctx.manifest;
  rq.harness_exe = ctx.harness_exe;
  rq.artifact = artifact;
  rq.work_dir = ctx.run_dir / "profile";
  rq.gpu = ctx.cfg.gpu;
  rq.cancel = ctx.world.stop;
  // ncu needs the GPU to itself: the harness steps aside while it runs.
  ctx.session->stop();
  auto p = profile_kernel(*ctx.world.runner, rq, why);
  std::string err;
  if (!ctx.session->recover("", &err)) {
    // Without its slots the next candidate cannot be judged: that is the
    // infrastructure's failure, and the next step reports it as such.
    ctx.out().event("restarting the harness after the profile: " + err, Tone::Warn);
  }
  if (!p) return "";
  ctx.log->append({{"type", "profile"}, {"time", ctx.world.clock->now_iso8601()}, {"incumbent", ctx.incumbent.candidate_id},
                   {"workload", p->workload}, {"kernels", p->kernels}});
  return p->text;
}

ContextPack context_pack_for(RunContext& ctx, int iteration) {
  if (ctx.cfg.profile && ctx.profile_stale) {
    std::string why;
    ctx.profile_text = profile_artifact(ctx, ctx.incumbent.artifact, &why);
    if (ctx.profile_text.empty() && !why.empty()) ctx.profile_text = "No profile: " + why + "\n";
    ctx.profile_stale = false;
  }
  PackInputs in;
  in.manifest = &ctx.manifest;
  in.home = ctx.paths.home;
  in.package_dir = ctx.package_dir;
  in.package_prefix = ctx.package_prefix;
  in.device_name = ctx.session ? ctx.session->device().value("name", "") : "";
  in.goal = ctx.goal;
  in.vs_baseline = ctx.vs_baseline;
  in.incumbent_id = ctx.incumbent.candidate_id;
  in.iteration = iteration;
  in.incumbent_tunables = ctx.incumbent.tunables;
  in.ideas = collect_ideas(ctx.cfg.idea, ctx.cfg.ideas);
  in.history = ctx.history;
  in.history_limit = ctx.cfg.history;
  in.incumbent_build = ctx.incumbent_build;
  in.recent_build_errors = ctx.recent_build_errors;
  in.recent_build_warnings = ctx.recent_build_warnings;
  in.incumbent_rows = ctx.incumbent_rows;
  in.profile = ctx.profile_text;
  ContextPack pack = assemble_context_pack(in);
  return pack;
}

}  // namespace ar
