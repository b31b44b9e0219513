// The guard on the starting kernel and in verify/bench, errors of the
// environment, and refused goals, end to end (issues 7 and 8).
#include <dlfcn.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "catch.h"
#include "e2e_support.h"

using e2e::run_cli;
using e2e::TempRepo;
namespace fs = std::filesystem;

namespace {

// Puts `const char* const kHome = std::getenv("HOME");` at file scope and
// returns its line number.
int plant_getenv(const TempRepo& repo) {
  fs::path kernel = repo.dir / "kernels/twomode/kernel.cpp";
  std::ifstream in(kernel);
  std::stringstream text;
  text << in.rdbuf();
  std::string source = text.str();
  const std::string anchor = "#include \"matmul_params.h\"\n";
  size_t at = source.find(anchor);
  REQUIRE(at != std::string::npos);
  source.insert(at + anchor.size(), "#include <cstdlib>\n\nconst char* const kHome = std::getenv(\"HOME\");\n");
  std::ofstream(kernel) << source;
  int line = 1;
  for (size_t i = 0; i < source.find("kHome"); ++i) line += source[i] == '\n';
  return line;
}

}  // namespace

TEST_CASE("a starting kernel that breaks a guard rule: run refuses it naming the line, verify reports it",
          "[guard]") {
  TempRepo repo({"twomode"});
  auto clean = run_cli(repo, {"verify", "--kernel", "twomode"});
  INFO(clean.err);
  REQUIRE(clean.exit_code == 0);
  CHECK(clean.err.find("guard: scope, source and compiled-code scans passed") != std::string::npos);

  const int line = plant_getenv(repo);
  const std::string where = "kernel.cpp:" + std::to_string(line);
  auto verify = run_cli(repo, {"verify", "--kernel", "twomode"});
  CHECK(verify.exit_code == 5);
  CHECK(verify.err.find("guard: " + where) != std::string::npos);
  CHECK(verify.err.find("getenv") != std::string::npos);
  auto bench = run_cli(repo, {"bench", "--kernel", "twomode", "--json"});
  CHECK(bench.exit_code == 5);
  CHECK(nlohmann::json::parse(bench.out)["guard"]["pass"] == false);

  repo.commit_all("a kernel that reads the environment");
  auto run = run_cli(repo, {"run", "--kernel", "twomode", "--max-iters", "1", "--tag", "g"});
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("the starting kernel breaks a guard rule: " + where) != std::string::npos);
  CHECK(run.err.find("fix it before a run") != std::string::npos);
  CHECK(repo.git({"branch", "--list", "autoresearch/*"}).empty());   // nothing changed
  CHECK(!fs::exists(repo.dir / ".autoresearch/runs/twomode-g"));
}

TEST_CASE("verify applies the scope check: a changed protected file is reported", "[guard]") {
  TempRepo repo({"twomode"});
  std::ofstream(repo.dir / "kernels/twomode/problem.cpp", std::ios::app) << "// edited\n";
  auto verify = run_cli(repo, {"verify", "--kernel", "twomode"});
  CHECK(verify.exit_code == 5);
  CHECK(verify.err.find("guard: kernels/twomode/problem.cpp is outside the editable files") != std::string::npos);
}

TEST_CASE("a state folder that cannot be written is an infrastructure error (exit 4) that says what to check",
          "[env]") {
  TempRepo repo({"twomode"});
  // As root, permissions do not stop a write; a file where the folder should be does.
  if (::getuid() == 0) {
    std::ofstream(repo.dir / ".autoresearch") << "";
  } else {
    fs::create_directories(repo.dir / ".autoresearch");
    fs::permissions(repo.dir / ".autoresearch", fs::perms::owner_read | fs::perms::owner_exec);
  }
  auto r = run_cli(repo, {"run", "--kernel", "twomode", "--max-iters", "1", "--tag", "ro"});
  if (::getuid() != 0) fs::permissions(repo.dir / ".autoresearch", fs::perms::owner_all);
  CHECK(r.exit_code == 4);
  CHECK(r.err.find("internal error") == std::string::npos);
  CHECK(r.err.find(".autoresearch") != std::string::npos);
  CHECK(r.err.find("check that you can write there") != std::string::npos);
}

TEST_CASE("a CUDA package without an NVIDIA driver says so, and how to check", "[env]") {
  if (void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    dlclose(lib);
    SUCCEED("this machine has a driver");
    return;
  }
  TempRepo repo({"twomode"});   // sparse_mla comes from AUTORESEARCH_HOME
  auto r = run_cli(repo, {"verify", "--kernel", "sparse_mla"});
  CHECK(r.exit_code == 4);
  CHECK(r.err.find("no NVIDIA driver found (libcuda.so.1 is missing): check `nvidia-smi`") != std::string::npos);
}

TEST_CASE("doctor reports a package whose manifest does not load", "[env]") {
  TempRepo repo({"twomode"});
  auto ok = run_cli(repo, {"doctor", "--json"});
  auto checks = nlohmann::json::parse(ok.out)["checks"];
  bool listed = false;
  for (const auto& c : checks)
    if (c["check"] == "package twomode") listed = c["ok"] == true;
  CHECK(listed);

  auto manifest = repo.dir / "kernels/twomode/manifest.json";
  auto j = nlohmann::json::parse(std::ifstream(manifest));
  j["tunables"][0]["values"] = nlohmann::json::array();
  std::ofstream(manifest) << j.dump(2);
  auto broken = run_cli(repo, {"doctor"});
  CHECK(broken.exit_code == 4);
  CHECK(broken.out.find("FAIL package twomode") != std::string::npos);
  CHECK(broken.out.find("tunables[0].values") != std::string::npos);
}

TEST_CASE("a goal of 1x or less is refused", "[goal]") {
  TempRepo repo({"twomode"});
  for (const char* goal : {"1x", "1", "0.9x"}) {
    auto r = run_cli(repo, {"run", "--kernel", "twomode", "--goal", goal, "--max-iters", "1"});
    INFO(goal << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("must be above 1x") != std::string::npos);
  }
  CHECK(!fs::exists(repo.dir / ".autoresearch/runs"));
}
