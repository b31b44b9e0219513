#include "autoresearch/util/file_lock.h"

#include <unistd.h>

#include "autoresearch/util/fs.h"
#include "catch.h"
#include "unit/fakes/temp_dir.h"

using namespace ar;

TEST_CASE("a held lock is refused and names its holder") {
  TempDir dir;
  auto path = dir / "locks" / "gpu0.lock";  // parent created on demand
  std::string holder;
  auto first = FileLock::try_acquire(path, "run sparse_mla-1 (autoresearch run)", &holder);
  REQUIRE(first);
  CHECK(read_file(path) ==
        "pid " + std::to_string(::getpid()) + "\nrun sparse_mla-1 (autoresearch run)\n");

  // flock is per open file description, so a second open in this process conflicts.
  auto second = FileLock::try_acquire(path, "another run", &holder);
  CHECK_FALSE(second);
  CHECK(holder == "pid " + std::to_string(::getpid()) + " (run sparse_mla-1 (autoresearch run))");

  first.reset();
  auto third = FileLock::try_acquire(path, "third", &holder);
  CHECK(third);
}

TEST_CASE("is_held sees a lock held elsewhere without taking or writing it") {
  TempDir dir;
  auto path = dir / "lock";
  std::string holder;
  CHECK_FALSE(FileLock::is_held(path, &holder));   // never created
  CHECK_FALSE(std::filesystem::exists(path));      // and not created by looking
  {
    auto held = FileLock::try_acquire(path, "run toy-t", &holder);
    REQUIRE(held);
    CHECK(FileLock::is_held(path, &holder));
    CHECK(holder == "pid " + std::to_string(::getpid()) + " (run toy-t)");
    CHECK(read_file(path) == "pid " + std::to_string(::getpid()) + "\nrun toy-t\n");
  }
  CHECK_FALSE(FileLock::is_held(path, &holder));
  CHECK(FileLock::try_acquire(path, "after", &holder));
}
