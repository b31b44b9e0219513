// `verify`, `bench`, `doctor` and usage errors, end to end.
#include "autoresearch/util/fs.h"
#include "catch.h"
#include "e2e_support.h"

using e2e::run_cli;
using e2e::TempRepo;

TEST_CASE("verify passes a correct kernel (exit 0) and fails a wrong one (exit 5)", "[verify]") {
  TempRepo repo({"planted"});
  auto ok = run_cli(repo, {"verify", "--kernel", "planted", "--json"});
  INFO(ok.err);
  REQUIRE(ok.exit_code == 0);
  auto j = nlohmann::json::parse(ok.out);
  CHECK(j["pass"] == true);
  CHECK(j["workloads"].size() >= 4);   // three declared and the hidden one

  auto wrong = run_cli(repo, {"verify", "--kernel", "planted", "--set", "MODE=4"});
  CHECK(wrong.exit_code == 5);
  CHECK(wrong.err.find("FAIL") != std::string::npos);   // human output on stderr
  CHECK(wrong.out.empty());                              // stdout is for --json

  auto crash = run_cli(repo, {"verify", "--kernel", "planted", "--set", "MODE=2"});
  CHECK(crash.exit_code == 5);

  auto bad = run_cli(repo, {"verify", "--kernel", "planted", "--set", "MODE=9"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("MODE=9 is not an allowed value") != std::string::npos);
}

TEST_CASE("bench prints the per-workload table with roofline positions, or JSON", "[bench]") {
  TempRepo repo({"planted"});
  auto r = run_cli(repo, {"bench", "--kernel", "planted", "--min-seconds", "0.05", "--max-seconds", "0.5"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("sq128") != std::string::npos);   // the table on stderr
  CHECK(r.err.find("roofline") != std::string::npos);
  CHECK(r.err.find("guard: scope, source and compiled-code scans passed") != std::string::npos);
  CHECK(r.out.empty());
  auto j = run_cli(repo, {"bench", "--kernel", "planted", "--json", "--min-seconds", "0.05", "--max-seconds", "0.5"});
  REQUIRE(j.exit_code == 0);
  auto doc = nlohmann::json::parse(j.out);
  REQUIRE(doc["bench"]["workloads"].size() == 2);
  CHECK(doc["bench"]["workloads"][0].contains("pct_of_roofline"));
}

TEST_CASE("bench --against times this source against another version of the package", "[bench]") {
  TempRepo repo({"planted"});
  const std::string start = repo.git({"rev-parse", "HEAD"});
  const std::vector<std::string> quick = {"--min-seconds", "0.05", "--max-seconds", "0.5"};
  auto args = [&](std::vector<std::string> a) {
    a.insert(a.end(), quick.begin(), quick.end());
    return a;
  };
  // MODE=5 (vectorised, several times faster) against the committed MODE=0.
  auto j = run_cli(repo, args({"bench", "--kernel", "planted", "--against", "HEAD", "--set", "MODE=5", "--json"}));
  INFO(j.err);
  REQUIRE(j.exit_code == 0);
  auto doc = nlohmann::json::parse(j.out);
  CHECK(doc["against"]["commit"] == start);
  CHECK(doc["against"]["tunables"]["MODE"] == 0);   // --set applies to this source only
  CHECK(doc["tunables"]["MODE"] == 5);
  CHECK(doc["against"]["verify"]["pass"] == true);
  CHECK(doc["verify"]["pass"] == true);
  CHECK(doc["bench"]["comparison"]["speedup"].get<double>() > 1.5);
  CHECK(doc["bench"]["summary"].get<std::string>().rfind("faster than HEAD", 0) == 0);
  REQUIRE(doc["bench"]["workloads"].size() == 2);
  CHECK(doc["bench"]["workloads"][0]["ratio"].get<double>() > 1.5);
  CHECK(repo.git({"status", "--porcelain"}).empty());   // the export and the builds stay in the state folder

  // The other way round, as a person reads it: the table with REF's time and the ratio, then the verdict.
  ar::write_file_atomic(repo.dir / "kernels/planted/tunables.json", "{\"MODE\": 5}");
  repo.commit_all("vectorised");
  ar::write_file_atomic(repo.dir / "kernels/planted/tunables.json", "{\"MODE\": 0}");
  auto r = run_cli(repo, args({"bench", "--kernel", "planted", "--against", "HEAD"}));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("ref µs") != std::string::npos);
  CHECK(r.err.find("slower than HEAD: 0.") != std::string::npos);
  CHECK(r.out.empty());

  // A version to compare against that is wrong is refused like a wrong source (exit 5), named.
  ar::write_file_atomic(repo.dir / "kernels/planted/tunables.json", "{\"MODE\": 4}");
  repo.commit_all("wrong");
  ar::write_file_atomic(repo.dir / "kernels/planted/tunables.json", "{\"MODE\": 0}");
  auto wrong = run_cli(repo, args({"bench", "--kernel", "planted", "--against", "HEAD"}));
  CHECK(wrong.exit_code == 5);
  CHECK(wrong.err.find("HEAD (") != std::string::npos);
  CHECK(wrong.err.find("fails verification") != std::string::npos);

  auto missing = run_cli(repo, args({"bench", "--kernel", "planted", "--against", "no-such-branch"}));
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("'no-such-branch' is neither a folder nor a revision") != std::string::npos);
}

TEST_CASE("usage errors exit 2 with a message that names what is wrong", "[usage]") {
  TempRepo repo({"planted"});
  auto goal = run_cli(repo, {"run", "--kernel", "planted", "--goal", "fast"});
  CHECK(goal.exit_code == 2);
  CHECK(goal.err.find("--goal") != std::string::npos);
  auto flag = run_cli(repo, {"run", "--kernel", "planted", "--max-itres", "3"});
  CHECK(flag.exit_code == 2);
  auto noresume = run_cli(repo, {"run", "--resume", "nothing-here"});
  CHECK(noresume.exit_code == 2);
  CHECK(noresume.err.find("no run 'nothing-here'") != std::string::npos);
  auto nolog = run_cli(repo, {"log"});
  CHECK(nolog.exit_code == 2);
  auto help = run_cli(repo, {"run", "--help"});
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("--max-iters") != std::string::npos);
  CHECK(help.out.find("`autoresearch runs` lists them") != std::string::npos);
  CHECK(help.out.find("autoresearch log` lists") == std::string::npos);
}
