// `autoresearch context`: prints exactly what a text agent receives. For a
// run, the pack its agent got last (kept in the run's folder); for a package,
// the pack the first proposal of a new run would get (no history yet).
#include <iostream>

#include <fmt/format.h>

#include "autoresearch/agents/context_assembly.h"
#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"
#include "commands.h"
#include "options.h"
#include "real_world.h"

namespace fs = std::filesystem;

namespace ar {

namespace {

struct ContextArgs {
  ConfigFlags f;
  std::string run;
  bool json = false;
  bool no_build = false;
};

ContextPack pack_from_json(const nlohmann::json& j) {
  ContextPack p;
  for (const auto& s : j.value("sections", nlohmann::json::array()))
    p.sections.push_back({s.value("file", ""), s.value("title", ""), s.value("text", "")});
  for (const auto& [path, text] : j.value("sources", nlohmann::json::object()).items()) p.sources[path] = text;
  p.facts = j;
  p.facts.erase("sections");
  p.facts.erase("sources");
  return p;
}

// The GPU's name as nvidia-smi reports it; empty when there is none.
std::string gpu_name(ProcessRunner& runner, int gpu) {
  ProcessSpec s;
  s.argv = {"nvidia-smi", "--query-gpu=name", "--format=csv,noheader", "-i", std::to_string(gpu)};
  s.timeout = std::chrono::seconds(20);
  auto r = runner.run(s);
  if (!r.ok()) return "";
  std::string name = r.out;
  while (!name.empty() && (name.back() == '\n' || name.back() == '\r' || name.back() == ' ')) name.pop_back();
  return name;
}

ContextPack pack_for_package(World& world, const RunConfig& cfg, bool build) {
  Paths paths = discover_paths(fs::current_path());
  Manifest m = load_manifest(resolve_manifest(paths, cfg.kernel));
  PackInputs in;
  in.manifest = &m;
  in.home = paths.home;
  in.package_dir = m.dir;
  auto rel = fs::relative(m.dir, paths.repo);
  in.package_prefix = rel.empty() || rel.string().rfind("..", 0) == 0 ? "" : rel.generic_string();
  in.device_name = m.backend == Backend::Cuda ? gpu_name(*world.runner, cfg.gpu) : "";
  in.goal = parse_goal(cfg.goal);
  in.iteration = 1;
  in.incumbent_tunables = read_tunables_file(m, m.dir / m.tunables_file);
  in.ideas = collect_ideas(cfg.idea, cfg.ideas);
  in.history_limit = cfg.history;
  if (build) {
    // Compiler feedback is part of what an agent is told; it needs a build.
    std::string why;
    if (auto tc = world.find_toolchain(m.backend, &why)) {
      world.printer->status("building " + m.name + " for the compiler's report");
      Builder b(m, paths, *tc, *world.runner);
      auto r = b.build(m.dir, in.incumbent_tunables, paths.state() / "scratch" / (m.name + "-context"), world.stop);
      world.printer->clear_status();
      in.incumbent_build = {{"ok", r.ok}, {"seconds", r.seconds}};
      in.incumbent_build.update(build_report_json(r));
      if (!r.ok) in.recent_build_errors = r.errors;
    }
  }
  return assemble_context_pack(in);
}

}  // namespace

CommandAction add_context_command(CLI::App& sub) {
  auto a = std::make_shared<ContextArgs>();
  add_config_flags(sub, a->f, {"kernel", "goal", "idea", "ideas", "history", "gpu"});
  sub.add_option("--run", a->run, "the pack a run's agent received last (a run id, as `autoresearch runs` lists)");
  sub.add_flag("--json", a->json, "the pack as JSON (what pack.json holds) on stdout");
  sub.add_flag("--no-build", a->no_build, "skip the build that gives the compiler's report");
  sub.footer("Prints the context pack a text agent (--agent llm or command) receives: the rules, the hardware, the "
             "model, the ideas, the history, the compiler's feedback, the roofline, the profile and the source.");
  return [a] {
    Paths paths = discover_paths(fs::current_path());
    RunConfig cfg = layered_config(a->f, paths, nullptr);
    ContextPack pack;
    if (!a->run.empty()) {
      fs::path file = paths.run_dir(a->run) / "context" / "pack.json";
      if (!fs::exists(paths.run_dir(a->run)))
        throw usage_error(fmt::format("no run '{}' under {} (`autoresearch runs` lists them)", a->run,
                                      paths.runs().string()));
      if (!fs::exists(file))
        throw usage_error(fmt::format("run {} has no context pack ({} is missing: its agent is the tuner, or it has "
                                      "not proposed yet)",
                                      a->run, file.string()));
      pack = pack_from_json(nlohmann::json::parse(read_file(file)));
    } else {
      if (cfg.kernel.empty()) throw usage_error("--kernel is required (or --run RUN)");
      RealWorld real;
      pack = pack_for_package(real.world, cfg, !a->no_build);
    }
    if (a->json) std::cout << pack.to_json().dump(2) << "\n";
    else std::cout << pack.render();
    return kExitOk;
  };
}

}  // namespace ar
