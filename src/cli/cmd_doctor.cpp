// `autoresearch doctor`: what is present, and the fix for what is not. Never
// prints a secret: for API keys it says only whether they are set.
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include <fmt/format.h>

#include "autoresearch/build/builder.h"
#include "autoresearch/core/manifest.h"
#include "autoresearch/core/paths.h"
#include "autoresearch/util/subprocess.h"
#include "autoresearch/agents/command_agent.h"
#include "autoresearch/llm/api_key.h"
#include "autoresearch/loop/llm_setup.h"
#include "commands.h"
#include "options.h"
#include "environment_errors.h"

namespace ar {

namespace {

struct Check {
  std::string name;
  bool ok = false;
  bool required = false;   // required for CPU packages (the GPU ones are required only on GPU machines)
  std::string detail;
  std::string fix;
};

std::string first_line(const std::string& s) {
  auto t = s.substr(0, s.find('\n'));
  while (!t.empty() && (t.back() == '\r' || t.back() == ' ')) t.pop_back();
  return t;
}

Check run_check(ProcessRunner& r, const std::string& name, std::vector<std::string> argv, bool required,
                const std::string& fix) {
  Check c{name, false, required, "", fix};
  if (find_program(argv[0]).empty() && !std::filesystem::exists(argv[0])) {
    c.detail = "not found";
    return c;
  }
  ProcessSpec s;
  s.argv = std::move(argv);
  s.timeout = std::chrono::seconds(20);
  auto res = r.run(s);
  c.ok = res.ok();
  c.detail = c.ok ? first_line(res.out.empty() ? res.err : res.out) : res.describe() + ": " + first_line(res.err);
  return c;
}

// A package: its manifest loads, and what it needs to build is here.
Check package_check(const Paths& p, const std::string& kernel, bool have_nvcc) {
  Check c{"package " + kernel, false, true, "", ""};
  try {
    Manifest m = load_manifest(resolve_manifest(p, kernel));
    c.ok = true;
    c.detail = fmt::format("{}, {} workloads ({} timed), {} tunables", backend_name(m.backend), m.workloads.size(),
                           m.timed_workloads().size(), m.tunables.size());
    if (m.backend == Backend::Cuda && !have_nvcc) {
      c.ok = false;
      c.required = false;   // a CUDA package on a machine without nvcc: not this machine's job
      c.detail += "; needs nvcc, which is not found";
      c.fix = "install the CUDA Toolkit to build it";
    }
  } catch (const std::exception& e) {
    c.detail = e.what();
    c.fix = "fix the manifest as the message says (autoresearch refuses to run a package it cannot load)";
  }
  return c;
}

// The endpoint the llm agent would use, asked for its model list; the key is
// named by the variable it came from, never shown.
Check llm_check(const RunConfig& cfg) {
  Check c{"LLM endpoint", false, false, "", ""};
  if (cfg.llm_model.empty()) {
    c.detail = "not configured";
    c.fix = "for --agent llm: --llm-model NAME (and --llm-provider, --llm-base-url), or the same keys in "
            "configs/autoresearch.json";
    return c;
  }
  try {
    LlmSettings s = llm_settings_from(cfg);
    ApiKey key = resolve_api_key(s.provider);
    ProbeResult p = probe_endpoint(s, key);
    c.ok = p.ok;
    c.detail = describe_endpoint(s, key) + ": " + p.message;
    if (!p.ok) c.fix = missing_key_problem(s, key).empty() ? "check the URL, the model name and the key" : missing_key_problem(s, key);
  } catch (const std::exception& e) {
    c.detail = e.what();
  }
  return c;
}

}  // namespace

CommandAction add_doctor_command(CLI::App& sub) {
  auto json = std::make_shared<bool>(false);
  auto f = std::make_shared<ConfigFlags>();
  sub.add_flag("--json", *json, "print the checks as JSON on stdout");
  add_config_flags(sub, *f, {"llm_provider", "llm_base_url", "llm_model", "llm_paid", "llm_connect_timeout_s"});
  sub.footer("Exit codes: 0 everything a CPU package needs is present and every package loads;\n"
             "4 something required is missing or a package is broken.");
  return [json, f] {
    RealProcessRunner r;
    std::vector<Check> checks;
    checks.push_back(run_check(r, "git", {"git", "--version"}, true, "apt-get install git"));
    std::string why;
    auto cxx = detect_toolchain(Backend::Cpu, r, &why);
    checks.push_back({"c++ compiler", cxx.has_value(), true, cxx ? cxx->compiler + ": " + cxx->version : why,
                      "apt-get install g++"});
    auto nvcc = detect_toolchain(Backend::Cuda, r, &why);
    checks.push_back({"nvcc", nvcc.has_value(), false, nvcc ? nvcc->compiler + ": " + nvcc->version : why,
                      "install the CUDA Toolkit (https://developer.nvidia.com/cuda-downloads) or set NVCC"});
    const bool driver = cuda_driver_present();
    checks.push_back({"NVIDIA driver", driver, false, driver ? "libcuda.so.1 loads" : "libcuda.so.1 is missing",
                      "install the NVIDIA driver (check with `nvidia-smi`); CPU packages work without one"});
    auto gpu = run_check(r, "GPU", {"nvidia-smi", "--query-gpu=index,name,driver_version,clocks.sm,temperature.gpu",
                                    "--format=csv,noheader"},
                         false, "install the NVIDIA driver; CPU packages work without a GPU");
    checks.push_back(gpu);
    if (gpu.ok) {
      auto apps = run_check(r, "other GPU processes",
                            {"nvidia-smi", "--query-compute-apps=pid,process_name,used_memory", "--format=csv,noheader"},
                            false, "stop them before measuring: they spoil timings");
      apps.ok = apps.ok && apps.detail.empty();
      if (apps.detail.empty()) apps.detail = "none";
      checks.push_back(apps);
    }
    std::string sanitizer = find_program("compute-sanitizer");
    if (sanitizer.empty() && std::filesystem::exists("/usr/local/cuda/bin/compute-sanitizer"))
      sanitizer = "/usr/local/cuda/bin/compute-sanitizer";
    checks.push_back({"compute-sanitizer", !sanitizer.empty(), false, sanitizer.empty() ? "not found" : sanitizer,
                      "part of the CUDA Toolkit; without it kept candidates are not sanitized"});
    std::string ncu = find_program("ncu");
    if (ncu.empty() && std::filesystem::exists("/usr/local/cuda/bin/ncu")) ncu = "/usr/local/cuda/bin/ncu";
    checks.push_back({"ncu", !ncu.empty(), false, ncu.empty() ? "not found" : ncu,
                      "Nsight Compute (part of the CUDA Toolkit): without it text agents get no hardware-counter profile"});
    std::string sandbox = sandbox_unavailable_reason(r);
    checks.push_back({"bubblewrap", sandbox.empty(), false, sandbox.empty() ? "works: --agent-sandbox can be used" : sandbox,
                      "for --agent-sandbox: apt-get install bubblewrap, and allow unprivileged user namespaces"});
    for (const char* key : {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AUTORESEARCH_LLM_API_KEY"}) {
      const char* v = std::getenv(key);
      checks.push_back({key, v && *v, false, v && *v ? "set" : "not set",
                        std::string("export ") + key + "=... for the llm agent (the tune agent needs no key)"});
    }
    try {
      Paths p = discover_paths(std::filesystem::current_path());
      checks.push_back(llm_check(layered_config(*f, p, nullptr)));
    } catch (const std::exception& e) {
      checks.push_back({"LLM endpoint", false, false, e.what(), ""});
    }
    try {
      Paths p = discover_paths(std::filesystem::current_path());
      auto kernels = known_kernels(p);
      std::string list;
      for (const auto& k : kernels) list += (list.empty() ? "" : ", ") + k;
      checks.push_back({"repository", true, true, p.repo.string(), ""});
      checks.push_back({"kernel packages", !kernels.empty(), false, list.empty() ? "none under kernels/" : list,
                        "add one under kernels/<name>/ with a manifest.json"});
      // Each package as a run would load it: a manifest that is found is not
      // yet one that is valid.
      for (const auto& k : kernels) checks.push_back(package_check(p, k, nvcc.has_value()));
      struct statvfs st;
      std::filesystem::path where = std::filesystem::exists(p.state()) ? p.state() : p.repo;
      if (statvfs(where.c_str(), &st) == 0) {
        double gb = double(st.f_bavail) * st.f_frsize / 1e9;
        checks.push_back({"disk space", gb > 2, true, fmt::format("{:.1f} GB free at {}", gb, where.string()),
                          "free some space: builds and logs need a few GB"});
      }
    } catch (const std::exception& e) {
      checks.push_back({"repository", false, true, e.what(), "run inside a git checkout (git init)"});
    }
    bool ok = true;
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : checks) {
      if (c.required && !c.ok) ok = false;
      out.push_back({{"check", c.name}, {"ok", c.ok}, {"required", c.required}, {"detail", c.detail}, {"fix", c.fix}});
      if (!*json)
        std::cout << fmt::format("{:<4} {:<22} {}{}\n", c.ok ? "ok" : (c.required ? "FAIL" : "--"), c.name, c.detail,
                                 c.ok || c.fix.empty() ? "" : "\n     fix: " + c.fix);
    }
    if (*json) std::cout << nlohmann::json{{"ok", ok}, {"checks", out}}.dump(2) << "\n";
    return ok ? 0 : 4;
  };
}

}  // namespace ar
