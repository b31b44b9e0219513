// The context pack: what a text agent is told, assembled from the package, the
// shipped context files and the run's state, in its three forms.
#include <fstream>

#include "autoresearch/agents/context_assembly.h"
#include "autoresearch/agents/command_agent.h"
#include "autoresearch/util/errors.h"
#include "autoresearch/util/fs.h"
#include "catch.h"
#include "unit/fakes/temp_dir.h"

namespace fs = std::filesystem;
using namespace ar;

namespace {

Manifest sparse_mla() { return load_manifest(fs::path(AR_TEST_SOURCE_DIR) / "kernels/sparse_mla/manifest.json"); }

PackInputs inputs(const Manifest& m) {
  PackInputs in;
  in.manifest = &m;
  in.home = AR_TEST_SOURCE_DIR;
  in.package_dir = m.dir;
  in.package_prefix = "kernels/sparse_mla";
  in.device_name = "NVIDIA H200";
  in.goal = 2;
  in.vs_baseline = 1.25;
  in.incumbent_id = 4;
  in.iteration = 9;
  in.incumbent_tunables = m.default_tunables();
  return in;
}

}  // namespace

TEST_CASE("the pack tells the agent the task, the rules, the machine, the model, the history and the source") {
  Manifest m = sparse_mla();
  PackInputs in = inputs(m);
  in.ideas = {"use wgmma for Q K^T"};
  ExperimentSummary h;
  h.id = 3;
  h.agent = "llm";
  h.idea = "double-buffer the gather";
  h.outcome.decision = Decision::Wrong;
  h.outcome.reason = "wrong on b64_4k: out: 12 elements outside tolerance";
  h.diff_summary = "kernel.cu +30 -4";
  in.history = {h};
  in.incumbent_build = {{"registers", 168}, {"spills", 0}};
  in.incumbent_rows = nlohmann::json::array(
      {{{"name", "b128_32k"}, {"median_us", 558.0}, {"tflops", 131.0}, {"pct_of_roofline", 13.2}, {"bound", "compute"}}});
  in.profile = "- achieved occupancy: 12.4% of the SM's warps\n";
  ContextPack pack = assemble_context_pack(in);

  REQUIRE(pack.find("task.md"));
  CHECK(pack.find("task.md")->text.find("Best so far: 1.250x (candidate #4)") != std::string::npos);
  CHECK(pack.find("task.md")->text.find("`kernel.cu`") != std::string::npos);
  CHECK(pack.find("rules.md")->text.find("SEARCH") != std::string::npos);                 // the shipped rules
  CHECK(pack.find("rules.md")->text.find("Never read a cache slot") != std::string::npos);  // the manifest's
  CHECK(pack.find("hardware.md")->text.find("H200") != std::string::npos);
  CHECK(pack.find("model.md")->text.find("DSA") != std::string::npos);
  CHECK(pack.find("ideas.md")->text.find("wgmma") != std::string::npos);
  CHECK(pack.find("history.md")->text.find("12 elements outside tolerance") != std::string::npos);
  CHECK(pack.find("feedback.md")->text.find("168 registers") != std::string::npos);
  CHECK(pack.find("roofline.md")->text.find("b128_32k") != std::string::npos);
  CHECK(pack.find("profile.md"));
  REQUIRE(pack.sources.count("kernel.cu"));
  REQUIRE(pack.sources.count("tunables.json"));
  CHECK_FALSE(pack.sources.count("reference.cu"));   // protected files are not handed out as editable

  std::string prompt = pack.render();
  CHECK(prompt.find("kernel.cu\n```cuda\n") != std::string::npos);
  CHECK(prompt.find("# Rules: what never to do") < prompt.find("# What was tried"));

  TempDir dir;
  pack.write_dir(dir.path() / "ctx");
  CHECK(fs::exists(dir.path() / "ctx/README.md"));
  CHECK(read_file(dir.path() / "ctx/src/kernel.cu") == read_file(m.dir / "kernel.cu"));
  auto facts = nlohmann::json::parse(read_file(dir.path() / "ctx/pack.json"));
  CHECK(facts["history"][0]["decision"] == "wrong");
  CHECK(facts["device"] == "NVIDIA H200");
}

TEST_CASE("the hardware file follows the detected device, and a CPU package gets cpu.md") {
  fs::path home = AR_TEST_SOURCE_DIR;
  CHECK(hardware_doc_for(home, "NVIDIA H200", Backend::Cuda)->filename() == "h200.md");
  CHECK(hardware_doc_for(home, "NVIDIA H100 80GB HBM3", Backend::Cuda)->filename() == "h100.md");
  CHECK(hardware_doc_for(home, "NVIDIA B200", Backend::Cuda)->filename() == "b200.md");
  CHECK_FALSE(hardware_doc_for(home, "Some Other GPU", Backend::Cuda));
  CHECK(hardware_doc_for(home, "Intel Xeon", Backend::Cpu)->filename() == "cpu.md");
}

TEST_CASE("a source holding backticks cannot close its fence early") {
  ContextPack pack;
  pack.sources["kernel.cpp"] = "// ```\nint x;\n";
  std::string text = pack.render();
  CHECK(text.find("````cpp\n") != std::string::npos);
}

TEST_CASE("ideas come from flags and from paragraphs of a file") {
  TempDir dir;
  std::ofstream(dir.path() / "ideas.md") << "# Ideas\n\n- split KV across blocks\n  for small batches\n\n\nwgmma for P V\n";
  auto ideas = collect_ideas({"one from the flag"}, (dir.path() / "ideas.md").string());
  REQUIRE(ideas.size() == 3);
  CHECK(ideas[0] == "one from the flag");
  CHECK(ideas[1] == "split KV across blocks for small batches");
  CHECK(ideas[2] == "wgmma for P V");
  CHECK_THROWS_AS(collect_ideas({}, (dir.path() / "missing.md").string()), Fatal);
}

TEST_CASE("a diff is summarised per file") {
  std::string diff =
      "diff --git a/kernels/k/kernel.cu b/kernels/k/kernel.cu\n--- a/kernels/k/kernel.cu\n+++ b/kernels/k/kernel.cu\n"
      "@@ -1,2 +1,3 @@\n-old\n+new\n+newer\n context\n"
      "diff --git a/kernels/k/tunables.json b/kernels/k/tunables.json\n--- a/x\n+++ b/x\n@@ @@\n-{}\n+{\"X\": 1}\n";
  CHECK(summarize_diff(diff) == "kernel.cu +2 -1, tunables.json +1 -1");
  CHECK(summarize_diff("").empty());
}

TEST_CASE("the command agent's command line and idea") {
  CHECK(expand_command("agent --ctx {context} --again {context}", "/tmp/a b/ctx") ==
        "agent --ctx '/tmp/a b/ctx' --again '/tmp/a b/ctx'");
  CHECK(expand_command("x", "/c") == "x");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  TempDir dir;
  CHECK(command_idea(dir.path(), "noise\nIDEA: first\nIDEA:  the last one  \n") == "the last one");
  std::ofstream(dir.path() / "idea.txt") << "\n  from the file\nsecond line\n";
  CHECK(command_idea(dir.path(), "IDEA: from stdout") == "from the file");
  auto argv = sandbox_argv({"/w"});
  CHECK(argv.front() == "bwrap");
  CHECK(std::find(argv.begin(), argv.end(), "--unshare-pid") != argv.end());
  CHECK(std::find(argv.begin(), argv.end(), "--die-with-parent") != argv.end());
}

TEST_CASE("a failure on a hidden workload is reported without its shape") {
  Manifest m = sparse_mla();
  PackInputs in = inputs(m);
  ExperimentSummary h;
  h.id = 7;
  h.outcome.decision = Decision::Wrong;
  h.outcome.reason = "verify all and hidden: wrong on hidden-2: out: 12 elements outside tolerance; first out[3,0,15,5]=nan";
  in.history = {h};
  ContextPack pack = assemble_context_pack(in);
  std::string text = pack.find("history.md")->text + pack.to_json().dump();
  CHECK(text.find("hidden workload") != std::string::npos);
  CHECK(text.find("out[3,0,15,5]") == std::string::npos);
  CHECK(text.find("12 elements") == std::string::npos);
}

TEST_CASE("ptxas's performance warnings on the best and on the last candidate reach the feedback") {
  Manifest m = sparse_mla();
  PackInputs in = inputs(m);
  in.incumbent_build = {{"registers", 168}, {"spills", 0}, {"ptxas_warnings", {"ar_stage0: (C7520) serialized"}}};
  in.recent_build_warnings = "#7:\n- ar_k1_stage0: (C7520) serialized";
  ContextPack pack = assemble_context_pack(in);
  REQUIRE(pack.find("feedback.md"));
  const std::string& text = pack.find("feedback.md")->text;
  CHECK(text.find("ptxas warns of a performance loss in it: ar_stage0: (C7520) serialized") != std::string::npos);
  CHECK(text.find("when it built the last candidate #7:\n- ar_k1_stage0: (C7520) serialized") != std::string::npos);

  in.incumbent_build = {{"registers", 168}, {"spills", 0}};
  in.recent_build_warnings.clear();
  pack = assemble_context_pack(in);
  CHECK(pack.find("feedback.md")->text.find("ptxas") == std::string::npos);
}
