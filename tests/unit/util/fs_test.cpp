#include "autoresearch/util/fs.h"

#include "autoresearch/util/errors.h"
#include "catch.h"
#include "unit/fakes/temp_dir.h"

using namespace ar;
namespace fs = std::filesystem;

TEST_CASE("write_file_atomic replaces a file whole and leaves no temp behind") {
  TempDir dir;
  auto path = dir / "sub" / "tunables.json";
  write_file_atomic(path, "first");
  CHECK(read_file(path) == "first");
  write_file_atomic(path, std::string("second\0with nul", 15));
  CHECK(read_file(path) == std::string("second\0with nul", 15));
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir / "sub")) entries += e.is_regular_file();
  CHECK(entries == 1);
}

TEST_CASE("write_file_atomic keeps the file's permissions") {
  TempDir dir;
  auto path = dir / "run.sh";
  write_file_atomic(path, "#!/bin/sh\n");
  fs::permissions(path, fs::perms::owner_all);
  write_file_atomic(path, "#!/bin/sh\necho hi\n");
  CHECK((fs::status(path).permissions() & fs::perms::owner_exec) != fs::perms::none);
}

TEST_CASE("append_line_durable appends whole lines") {
  TempDir dir;
  auto path = dir / "run" / "experiments.jsonl";
  append_line_durable(path, "{\"a\":1}");
  append_line_durable(path, "{\"b\":2}");
  CHECK(read_file(path) == "{\"a\":1}\n{\"b\":2}\n");
}

TEST_CASE("failures throw Fatal naming the file") {
  TempDir dir;
  try {
    read_file(dir / "nope.txt");
    FAIL("expected a Fatal");
  } catch (const Fatal& e) {
    CHECK(e.code() == kExitUsage);
    CHECK(std::string(e.what()).find("nope.txt") != std::string::npos);
  }
  // A directory where the log file should be: the append cannot happen.
  fs::create_directories(dir / "log.jsonl");
  try {
    append_line_durable(dir / "log.jsonl", "x");
    FAIL("expected a Fatal");
  } catch (const Fatal& e) {
    CHECK(e.code() == kExitInfrastructure);
    CHECK(std::string(e.what()).find("log.jsonl") != std::string::npos);
  }
}

TEST_CASE("a full disk is an infrastructure failure") {
  if (!fs::exists("/dev/full")) return;
  try {
    append_line_durable("/dev/full", "x");
    FAIL("expected a Fatal");
  } catch (const Fatal& e) {
    CHECK(e.code() == kExitInfrastructure);
    CHECK(std::string(e.what()).find("/dev/full") != std::string::npos);
  }
}
