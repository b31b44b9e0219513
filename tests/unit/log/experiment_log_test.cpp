#include "autoresearch/log/experiment_log.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "autoresearch/util/errors.h"
#include "catch.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A fresh directory per test, removed at the end of the scope.
struct TempDir {
  fs::path path;
  TempDir() {
    static std::atomic<int> counter{0};
    path = fs::temp_directory_path() /
           ("ar_log_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string fatal_message(const std::function<void()>& f, int* code = nullptr) {
  try {
    f();
  } catch (const ar::Fatal& e) {
    if (code) *code = e.code();
    return e.what();
  }
  return "";
}

json header() { return {{"run_id", "r1"}, {"kernel", "vec_add"}, {"config", {{"goal", 2.0}}}}; }

}  // namespace

TEST_CASE("a log written line by line reads back the same") {
  TempDir dir;
  fs::path file = dir.path / "runs" / "r1" / ar::kLogFileName;  // parent dirs created
  auto log = ar::ExperimentLog::create(file, header());
  REQUIRE(log.file() == file);
  json baseline = {{"type", "baseline"}, {"time", "2026-01-01T00:00:00Z"}};
  json candidate = {{"type", "candidate"}, {"id", 1}, {"idea", "TILE_M 16→64"},
                    {"diff", "line one\nline two\n"}, {"commit", nullptr}};
  log.append(baseline);
  log.append(candidate);

  ar::LogContents read = ar::read_log(file);
  CHECK(read.header["type"] == "header");
  CHECK(read.header["version"] == ar::kLogVersion);
  CHECK(read.header["kernel"] == "vec_add");
  REQUIRE(read.lines.size() == 2);
  CHECK(read.lines[0] == baseline);
  CHECK(read.lines[1] == candidate);
  CHECK_FALSE(read.torn_tail);

  std::string text = slurp(file);
  CHECK(text.rfind("{\"type\":\"header\"", 0) == 0);  // "type" leads every line
  CHECK(std::count(text.begin(), text.end(), '\n') == 3);
}

TEST_CASE("create refuses a file that exists") {
  TempDir dir;
  fs::path file = dir.path / ar::kLogFileName;
  spit(file, "precious\n");
  int code = 0;
  std::string msg = fatal_message([&] { ar::ExperimentLog::create(file, header()); }, &code);
  CHECK(code == ar::kExitUsage);
  CHECK(msg.find(file.string()) != std::string::npos);
  CHECK(slurp(file) == "precious\n");
}

TEST_CASE("invalid UTF-8 in a line does not lose the line") {
  TempDir dir;
  fs::path file = dir.path / ar::kLogFileName;
  auto log = ar::ExperimentLog::create(file, header());
  log.append({{"type", "candidate"}, {"reason", std::string("bad byte \xff here")}});
  auto read = ar::read_log(file);
  REQUIRE(read.lines.size() == 1);
  CHECK(read.lines[0]["reason"].get<std::string>().find("here") != std::string::npos);
}

TEST_CASE("a torn last line is reported on read and cut before appending") {
  TempDir dir;
  fs::path file = dir.path / ar::kLogFileName;
  {
    auto log = ar::ExperimentLog::create(file, header());
    log.append({{"type", "candidate"}, {"id", 1}});
  }
  const std::string good = slurp(file);

  SECTION("a partial line without its newline") {
    spit(file, good + "{\"type\":\"candidate\",\"id\":2,\"dif");
  }
  SECTION("zero bytes left by a crash") {
    spit(file, good + std::string(16, '\0'));
  }
  SECTION("a damaged last line that still has its newline") {
    spit(file, good + "{\"type\":\"cand\n");
  }

  auto read = ar::read_log(file);
  CHECK(read.torn_tail);
  REQUIRE(read.lines.size() == 1);
  CHECK(read.lines[0]["id"] == 1);

  auto log = ar::ExperimentLog::open_for_append(file);
  CHECK(slurp(file) == good);  // the torn tail is gone before anything is appended
  log.append({{"type", "candidate"}, {"id", 2}});
  auto after = ar::read_log(file);
  CHECK_FALSE(after.torn_tail);
  REQUIRE(after.lines.size() == 2);
  CHECK(after.lines[1]["id"] == 2);
}

TEST_CASE("a complete last line missing only its newline is kept") {
  TempDir dir;
  fs::path file = dir.path / ar::kLogFileName;
  ar::ExperimentLog::create(file, header());
  spit(file, slurp(file) + "{\"type\":\"candidate\",\"id\":1}");

  auto read = ar::read_log(file);
  CHECK_FALSE(read.torn_tail);
  REQUIRE(read.lines.size() == 1);

  auto log = ar::ExperimentLog::open_for_append(file);
  log.append({{"type", "candidate"}, {"id", 2}});
  auto after = ar::read_log(file);
  REQUIRE(after.lines.size() == 2);
  CHECK(after.lines[0]["id"] == 1);
  CHECK(after.lines[1]["id"] == 2);
}

TEST_CASE("a corrupt line before the last names the file and line") {
  TempDir dir;
  fs::path file = dir.path / ar::kLogFileName;
  ar::ExperimentLog::create(file, header());
  spit(file, slurp(file) + "{\"type\":\"candidate\",\"id\":1}\n" + "not json\n" +
                 "{\"type\":\"candidate\",\"id\":3}\n");
  int code = 0;
  std::string msg = fatal_message([&] { ar::read_log(file); }, &code);
  CHECK(code == ar::kExitUsage);
  CHECK(msg.find(file.string() + ":3:") != std::string::npos);

  // Resuming must not build on it either, and must leave the file alone.
  const std::string before = slurp(file);
  CHECK_THROWS_AS(ar::ExperimentLog::open_for_append(file), ar::Fatal);
  CHECK(slurp(file) == before);
}

TEST_CASE("headers are validated") {
  TempDir dir;
  fs::path file = dir.path / ar::kLogFileName;
  int code = 0;
  std::string msg;

  SECTION("empty file") {
    spit(file, "");
    msg = fatal_message([&] { ar::read_log(file); }, &code);
    CHECK(msg.find("no header") != std::string::npos);
  }
  SECTION("not a header") {
    spit(file, "{\"type\":\"candidate\"}\n");
    msg = fatal_message([&] { ar::read_log(file); }, &code);
    CHECK(msg.find(file.string() + ":1:") != std::string::npos);
  }
  SECTION("a newer version") {
    spit(file, "{\"type\":\"header\",\"version\":99}\n");
    msg = fatal_message([&] { ar::ExperimentLog::open_for_append(file); }, &code);
    CHECK(msg.find("99") != std::string::npos);
  }
  SECTION("a torn header") {
    spit(file, "{\"type\":\"hea");
    msg = fatal_message([&] { ar::read_log(file); }, &code);
    CHECK(msg.find(file.string() + ":1:") != std::string::npos);
  }
  CHECK(code == ar::kExitUsage);
}
