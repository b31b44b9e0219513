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
