// `bench --against REF`: which version REF names, what it differs in, and the
// one-line reading of the comparison.
#include "cli/bench_against.h"

#include "autoresearch/util/fs.h"
#include "catch.h"
#include "unit/fakes/fake_git.h"
#include "unit/fakes/temp_dir.h"

using namespace ar;
namespace fs = std::filesystem;

namespace {

const char* kManifest = R"({
  "schema": 1, "name": "toy", "backend": "cpu",
  "editable": ["kernel.cpp"],
  "kernel": {"source": "kernel.cpp", "tunables_file": "tunables.json"},
  "harness": {"sources": ["problem.cpp"]},
  "tunables": [{"name": "MODE", "values": [0, 1], "default": 0}],
  "workloads": [{"name": "w", "params": {"n": 4}, "timed": true, "quick": true}],
  "tolerances": [{"output": "c", "abs": 1e-3, "rel": 1e-3}]
})";

WorkloadComparison workload(const std::string& name, double ratio, double low, double high) {
  WorkloadComparison w;
  w.workload = name;
  w.ratio = ratio;
  w.ratio_ci_low = low;
  w.ratio_ci_high = high;
  return w;
}

Comparison comparison(double speedup, double low, double high, std::vector<WorkloadComparison> workloads) {
  Comparison c;
  c.speedup = speedup;
  c.ci_low = low;
  c.ci_high = high;
  c.p_value = 0.001;
  c.workloads = std::move(workloads);
  return c;
}

// A repository at dir/repo whose first commit holds kernels/toy; the checkout's copy is written too.
struct ToyRepo {
  TempDir tmp;
  Paths paths;
  FakeGit git{{"kernels/toy/manifest.json", kManifest},
              {"kernels/toy/tunables.json", "{\"MODE\": 0}"},
              {"kernels/toy/kernel.cpp", "// start\n"},
              {"kernels/toy/problem.cpp", "// problem\n"},
              {"kernels/toy/results/old.txt", "a record\n"}};
  Manifest current;
  ToyRepo() {
    paths.repo = tmp.path() / "repo";
    for (const auto& [path, text] : git.files()) write_file_atomic(paths.repo / path, text);
    current = load_manifest(paths.repo / "kernels/toy/manifest.json");
  }
};

}  // namespace

TEST_CASE("against_summary: faster, slower or no significant difference, and the first workload slower") {
  auto faster = against_summary(comparison(1.2, 1.1, 1.3, {workload("a", 1.2, 1.1, 1.3)}), "HEAD", 0.02);
  CHECK(faster.rfind("faster than HEAD: 1.200x (95% CI 1.100-1.300, p = 0.001)", 0) == 0);
  CHECK(faster.find("over 1 workloads") != std::string::npos);
  CHECK(faster.find("slower on") == std::string::npos);

  auto slower = against_summary(comparison(0.9, 0.85, 0.95, {workload("a", 0.9, 0.85, 0.95)}), "main", 0.02);
  CHECK(slower.rfind("slower than main: 0.900x", 0) == 0);
  CHECK(slower.find("; slower on a: 0.900x (95% CI 0.850-0.950)") != std::string::npos);

  auto same = against_summary(comparison(1.004, 0.99, 1.02, {workload("a", 1.01, 1.0, 1.02)}), "HEAD~1", 0.02);
  CHECK(same.rfind("no significant difference from HEAD~1: 1.004x", 0) == 0);

  // Faster overall, one workload significantly slower beyond the margin; one slower within it is not named.
  auto mixed = against_summary(comparison(1.1, 1.05, 1.15, {workload("small", 0.99, 0.985, 0.995),
                                                            workload("big", 0.95, 0.94, 0.96),
                                                            workload("huge", 1.3, 1.2, 1.4)}),
                               "HEAD", 0.02);
  CHECK(mixed.find("; slower on big: 0.950x") != std::string::npos);
  CHECK(mixed.find("small") == std::string::npos);
}

TEST_CASE("load_against exports the package as it is at a revision, with its own tunables") {
  ToyRepo r;
  const std::string start = r.git.head();
  r.git.write("kernels/toy/kernel.cpp", "// faster\n");
  r.git.write("kernels/toy/tunables.json", "{\"MODE\": 1}");
  r.git.commit_all("faster");

  auto v = load_against(r.git, r.paths, r.current, start);
  CHECK(v.commit == start);
  CHECK(v.label == start);
  CHECK(v.dir.string().find(".autoresearch") != std::string::npos);   // under the state folder, not the checkout
  CHECK(read_file(v.dir / "kernel.cpp") == "// start\n");
  CHECK(v.tunables.at("MODE") == 0);
  CHECK(v.differs.empty());   // the kernel and the tunables are what a version may change; results/ is a record
  CHECK_FALSE(fs::exists(v.dir / "results"));   // not exported

  auto head = load_against(r.git, r.paths, r.current, "HEAD");
  CHECK(read_file(head.dir / "kernel.cpp") == "// faster\n");
  CHECK(head.tunables.at("MODE") == 1);

  // A file outside the editable ones that differs is named (both are judged by this package's harness).
  r.git.write("kernels/toy/problem.cpp", "// another problem\n");
  r.git.write("kernels/toy/extra.h", "// only there\n");
  r.git.commit_all("problem changed");
  auto changed = load_against(r.git, r.paths, r.current, "HEAD");
  CHECK(changed.differs == std::vector<std::string>{"extra.h", "problem.cpp"});
}

TEST_CASE("load_against takes a folder as it is") {
  ToyRepo r;
  fs::path other = r.tmp.path() / "elsewhere" / "toy";
  for (const auto& [path, text] : r.git.files())
    write_file_atomic(other / fs::path(path).lexically_relative("kernels/toy"), text);
  write_file_atomic(other / "tunables.json", "{\"MODE\": 1}");
  auto v = load_against(r.git, r.paths, r.current, other.string());
  CHECK(v.commit.empty());
  CHECK(v.dir == fs::canonical(other));
  CHECK(v.tunables.at("MODE") == 1);
  CHECK(v.differs.empty());
}

TEST_CASE("load_against refuses what cannot be compared, with a message naming it") {
  ToyRepo r;
  auto message = [&](const std::string& ref) {
    try {
      load_against(r.git, r.paths, r.current, ref);
    } catch (const Fatal& e) {
      CHECK(e.code() == kExitUsage);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message("no-such-branch").find("'no-such-branch' is neither a folder nor a revision") != std::string::npos);

  fs::path empty = r.tmp.path() / "empty";
  fs::create_directories(empty);
  CHECK(message(empty.string()).find("holds no manifest.json") != std::string::npos);

  r.git.remove("kernels/toy/manifest.json");
  r.git.remove("kernels/toy/tunables.json");
  r.git.remove("kernels/toy/kernel.cpp");
  r.git.remove("kernels/toy/problem.cpp");
  r.git.remove("kernels/toy/results/old.txt");
  r.git.commit_all("package removed");
  CHECK(message("HEAD").find("has no package at kernels/toy") != std::string::npos);

  // A package outside the repository has no revisions to name.
  Paths elsewhere = r.paths;
  elsewhere.repo = r.tmp.path() / "another-repo";
  try {
    load_against(r.git, elsewhere, r.current, r.git.head());
    FAIL("expected a usage error");
  } catch (const Fatal& e) {
    CHECK(std::string(e.what()).find("is not inside the repository") != std::string::npos);
  }
}
