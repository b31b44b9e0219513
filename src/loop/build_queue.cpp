// Guard scan and compile of one candidate. The tuner's candidates differ only in
// -D defines, so several of them compile at once on spare cores while the GPU
// measures (the loop runs this function on worker threads); everything it
// touches is either read-only or the candidate's own build folder.
//
// Two scans: the preprocessed source before the build (what was written), and
// the compiled code after it (what was built: PTX, cubin symbols, SASS; or the
// shared object's imports, load-time code and instructions). The second also
// runs when nvcc wrote the PTX and ptxas then failed, so a candidate whose
// device-side launch or printf only fails to link is named a cheat, not a
// build error.
#include "autoresearch/guard/guard.h"
#include "autoresearch/util/hash.h"
#include "steps.h"

namespace ar {

PreparedBuild prepare_build(RunContext& ctx, const Tunables& t, int id, const std::atomic<bool>* cancel,
                            const std::filesystem::path& out_dir) {
  PreparedBuild pb;
  auto started = std::chrono::steady_clock::now();
  std::string errors;
  auto pre = ctx.builder->preprocess(ctx.package_dir, t, &errors, cancel);
  if (!pre) {
    pb.preprocess_error = errors;
    pb.build.ok = false;
    pb.build.cancelled = ctx.stop_requested() || (cancel && cancel->load());
    pb.build.errors = errors;
    return pb;
  }
  pb.kernel_hash = sha256_hex(*pre);
  std::vector<std::filesystem::path> editable;
  for (const auto& e : ctx.manifest.editable) editable.push_back(ctx.package_dir / e);
  auto scan = scan_preprocessed_source(*pre, editable, ctx.manifest.backend);
  pb.scan_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!scan.pass) {
    pb.guard_failure = scan.reason();
    return pb;
  }
  pb.build = ctx.builder->build(ctx.package_dir, t, out_dir.empty() ? ctx.builds_dir() / std::to_string(id) : out_dir,
                                cancel);
  const BuildResult& b = pb.build;
  if (b.cancelled || (!b.ok && b.ptx.empty())) return pb;
  const auto scan_started = std::chrono::steady_clock::now();
  CompiledCode code;
  if (b.ok) code.binary = b.artifact;
  code.ptx = b.ptx;
  code.disassembly = b.disassembly;
  auto compiled = scan_compiled_code(code, ctx.manifest.backend);
  pb.scan_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - scan_started).count();
  if (!compiled.pass) pb.guard_failure = compiled.reason();
  return pb;
}

namespace {

// The incumbent's kernel as PreparedBuild::kernel_hash names it: its tunables preprocessed with the
// worktree's source, which is the incumbent's where a tunables-only candidate is judged. Computed once
// per incumbent; empty when the source does not preprocess.
std::string incumbent_kernel_hash(RunContext& ctx) {
  const std::string key = ctx.incumbent.commit + "\n" + nlohmann::json(ctx.incumbent.tunables).dump() + "\n" +
                          ctx.incumbent.source_hash;
  if (key != ctx.incumbent_kernel_for) {
    std::string errors;
    auto pre = ctx.builder->preprocess(ctx.package_dir, ctx.incumbent.tunables, &errors, ctx.world.stop);
    ctx.incumbent_kernel = pre ? sha256_hex(*pre) : "";
    ctx.incumbent_kernel_for = key;
  }
  return ctx.incumbent_kernel;
}

}  // namespace

std::string same_kernel_as_incumbent(RunContext& ctx, const Proposal& p, const PreparedBuild& pb) {
  if (p.changes_source() || pb.kernel_hash.empty() || pb.kernel_hash != incumbent_kernel_hash(ctx)) return "";
  return "the same kernel as the best: the changed tunables do not change the preprocessed source";
}

}  // namespace ar
