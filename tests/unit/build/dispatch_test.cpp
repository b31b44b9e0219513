// The dispatch build: the generated selector (its table, the shape reads, the
// delegation), the host copy of its rule, the one translation unit of renamed
// variants against a fake toolchain, and, where nvcc is installed, a real
// dispatch cubin of two sparse_mla variants.
#include <fstream>

#include "autoresearch/build/dispatch.h"
#include "autoresearch/util/fs.h"
#include "autoresearch/util/subprocess.h"
#include "catch.h"
#include "unit/fakes/fake_process.h"
#include "unit/fakes/temp_dir.h"

namespace fs = std::filesystem;
using namespace ar;

namespace {

Manifest package(const fs::path& dir) {
  fs::create_directories(dir);
  std::ofstream(dir / "kernel.cu") << "// kernel\n";
  std::ofstream(dir / "params.h") << "struct P { int batch; int heads; };\n";
  std::ofstream(dir / "manifest.json") << R"({"schema": 1, "name": "pkg", "backend": "cuda",
    "editable": ["kernel.cu"], "kernel": {"source": "kernel.cu", "tunables_file": "tunables.json"},
    "build": {"flags": [], "arch": "sm_90a", "timeout_s": 30}, "harness": {"sources": ["problem.cu"]},
    "tunables": [{"name": "X", "values": [0, 1], "default": 0}],
    "workloads": [{"name": "small", "params": {"batch": 1, "heads": 16}, "quick": true, "timed": true},
                  {"name": "big", "params": {"batch": 128, "heads": 128}, "timed": true}],
    "tolerances": [{"output": "out", "abs": 1e-3}],
    "dispatch": {"params_header": "params.h", "params_type": "P", "shape": {"batch": "p.batch", "heads": "p.heads"}}})";
  std::ofstream(dir / "tunables.json") << "{\"X\": 0}\n";
  std::ofstream(dir / "problem.cu") << "// protected\n";
  return load_manifest(dir / "manifest.json");
}

std::string arg_after(const std::vector<std::string>& argv, const std::string& flag) {
  auto it = std::find(argv.begin(), argv.end(), flag);
  return it != argv.end() && it + 1 != argv.end() ? *(it + 1) : "";
}

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

TEST_CASE("the selector picks the variant of the nearest known shape, and the generated code holds the same table") {
  TempDir dir;
  Manifest m = package(dir / "pkg");
  std::vector<DispatchCase> cases = {{"small", dispatch_shape(*m.dispatch, m.workloads[0].params), 2},
                                     {"big", dispatch_shape(*m.dispatch, m.workloads[1].params), 1}};
  CHECK(cases[0].shape == std::vector<double>{1, 16});
  // A shape the run never measured goes to the nearer one, in log space.
  CHECK(nearest_case(cases, {4, 16}).variant == 2);
  CHECK(nearest_case(cases, {64, 128}).variant == 1);
  CHECK(nearest_case(cases, {160, 8}).workload == "big");   // batch dominates here: log2 161 vs 2
  CHECK(dispatch_distance({1, 16}, {1, 16}) == 0);

  const std::string src = dispatch_selector_source(m, cases, 2, "run pkg-x");
  CHECK(src.find("#include \"params.h\"") != std::string::npos);
  CHECK(src.find("ar_plan(const P p, int num_sms, ar::LaunchPlan* plan)") != std::string::npos);
  CHECK(src.find("{{1.0, 16.0}, 2},   // small") != std::string::npos);
  CHECK(src.find("{{128.0, 128.0}, 1},   // big") != std::string::npos);
  CHECK(src.find("static_cast<double>(p.batch)") != std::string::npos);
  CHECK(src.find("pl.delegate = kKnownShapes[pick].variant;") != std::string::npos);
  CHECK(src.find("run pkg-x") != std::string::npos);
}

TEST_CASE("a manifest's dispatch section is checked: known params, one expression each, a type name") {
  TempDir dir;
  package(dir / "pkg");
  auto with = [&](const std::string& dispatch) {
    std::string text = read_file(dir / "pkg" / "manifest.json");
    text.replace(text.find("\"dispatch\""), std::string::npos, "\"dispatch\": " + dispatch + "}");
    write_file_atomic(dir / "pkg" / "manifest.json", text);
    return [&] { load_manifest(dir / "pkg" / "manifest.json"); };
  };
  CHECK_THROWS_WITH(with(R"({"params_header": "params.h", "params_type": "P", "shape": {"batsh": "p.batch"}})")(),
                    Catch::Contains("no workload param"));
  CHECK_THROWS_WITH(with(R"j({"params_header": "params.h", "params_type": "P", "shape": {"batch": "p.batch; evil()"}})j")(),
                    Catch::Contains("single expression"));
  CHECK_THROWS_WITH(with(R"({"params_header": "params.h", "params_type": "P x", "shape": {"batch": "p.batch"}})")(),
                    Catch::Contains("not a C++ type name"));
  CHECK_THROWS_WITH(with(R"({"params_header": "nope.h", "params_type": "P", "shape": {"batch": "p.batch"}})")(),
                    Catch::Contains("nope.h"));
}

TEST_CASE("the variants are compiled in one translation unit, each in its namespace with its tunables and renames") {
  TempDir dir;
  Manifest m = package(dir / "pkg");
  Paths paths;
  paths.home = dir.path();
  FakeProcessRunner runner;
  runner.on("nvcc", [](const ProcessSpec& s) {
    std::ofstream(arg_after(s.argv, "-o")) << "\x7f" "ELF";
    return FakeProcessRunner::exited(0, "", "ptxas info    : Function properties for ar_k2_stage0\n"
                                            "ptxas info    : Used 40 registers");
  });
  Builder b(m, paths, Toolchain{"/opt/cuda/bin/nvcc", "release 13.0", ""}, runner);
  std::vector<DispatchVariant> variants = {
      {3, "best", "#include <cuda_bf16.h>\n#include \"params.h\"\n// variant one\n", {{"X", 0}}},
      {7, "small", "  #  include \"params.h\"\n#include \"extra.cuh\"\n// variant two\n", {{"X", 1}}}};
  std::vector<DispatchCase> cases = {{"small", {1, 16}, 2}, {"big", {128, 128}, 1}};
  DispatchBuild d = build_dispatch(b, variants, cases, "run r", dir / "out", nullptr);
  INFO(d.result.errors);
  REQUIRE(d.result.ok);
  CHECK(d.result.artifact == dir / "out" / "kernel.cubin");
  CHECK(d.result.registers == 40);   // a renamed stage kernel counts
  REQUIRE(d.commands.size() == 1);
  CHECK_FALSE(has(d.commands[0], "-rdc=true"));
  const fs::path unit = dispatch_unit_path(dir / "out");
  CHECK(arg_after(d.commands[0], "-Xptxas=-v") == unit.string());
  CHECK(read_file(unit.parent_path() / "variant_2.cu") == variants[1].source);
  const std::string tu = read_file(unit);
  // Each include once, at file scope, before the first namespace.
  const size_t first_ns = tu.find("namespace ar_dispatch_k1 {");
  REQUIRE(first_ns != std::string::npos);
  for (const char* inc : {"#include <cuda_bf16.h>", "#include \"params.h\"", "#include \"extra.cuh\""}) {
    CHECK(tu.find(inc) < first_ns);
    CHECK(tu.find(inc, tu.find(inc) + 1) > first_ns);   // (the selector at the end includes its own)
  }
  const size_t k2 = tu.find("namespace ar_dispatch_k2 {");
  REQUIRE(k2 != std::string::npos);
  CHECK(tu.find("#define X 1", k2) != std::string::npos);
  CHECK(tu.find("#define ar_plan ar_k2_plan", k2) != std::string::npos);
  CHECK(tu.find("#define ar_stage3 ar_k2_stage3", k2) != std::string::npos);
  CHECK(tu.find("#include \"" + (unit.parent_path() / "variant_2.cu").string() + "\"", k2) != std::string::npos);
  CHECK(tu.find("#undef ar_plan", k2) != std::string::npos);
  // The selector comes last, with the name ar_plan.
  CHECK(tu.rfind("extern \"C\" __global__ void ar_plan(const P p") > k2);

  SECTION("a dispatch that does not compile says what it needs") {
    runner.on("nvcc", FakeProcessRunner::exited(1, "", "params.h(1): error: redefinition of 'P'"));
    DispatchBuild bad = build_dispatch(b, variants, cases, "run r", dir / "out", nullptr);
    CHECK_FALSE(bad.result.ok);
    CHECK(bad.result.errors.find("include guards") != std::string::npos);
    CHECK(bad.result.errors.find("redefinition of 'P'") != std::string::npos);
  }
}

TEST_CASE("a real dispatch cubin of two sparse_mla variants compiles in one unit and exports every entry point", "[nvcc]") {
  const fs::path nvcc = "/usr/local/cuda/bin/nvcc";
  if (!fs::exists(nvcc)) {
    WARN("nvcc is not installed here: the real dispatch build is not tried");
    return;
  }
  TempDir dir;
  Manifest m = load_manifest(fs::path(AR_TEST_SOURCE_DIR) / "kernels" / "sparse_mla" / "manifest.json");
  Paths paths;
  paths.home = AR_TEST_SOURCE_DIR;
  RealProcessRunner runner;
  Builder b(m, paths, Toolchain{nvcc.string(), "", ""}, runner);
  const std::string source = read_file(m.dir / m.kernel_source);
  Tunables big = m.default_tunables(), small = big;
  small["HEADS_PER_BLOCK"] = 16;
  std::vector<DispatchCase> cases;
  for (const Workload& w : m.workloads)
    cases.push_back({w.name, dispatch_shape(*m.dispatch, w.params), w.params.value("heads", 128) <= 16 ? 2 : 1});
  DispatchBuild d = build_dispatch(b, {{1, "big", source, big}, {2, "small", source, small}}, cases, "test", dir / "out",
                                   nullptr);
  INFO(d.result.errors);
  REQUIRE(d.result.ok);
  const std::string cubin = read_file(d.result.artifact);
  for (const char* name : {"ar_plan", "ar_k1_plan", "ar_k1_stage0", "ar_k1_stage1", "ar_k2_plan", "ar_k2_stage0"})
    CHECK(cubin.find(name) != std::string::npos);
  CHECK(d.result.registers.value_or(0) > 0);
}
