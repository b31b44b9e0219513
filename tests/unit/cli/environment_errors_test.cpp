// Errors of the machine, not of the input, said as what to fix (issue 8).
#include "cli/environment_errors.h"

#include <system_error>

#include "catch.h"

using namespace ar;

TEST_CASE("a harness that cannot load libcuda.so.1 means no NVIDIA driver") {
  // What HarnessSession::start throws when the loader fails before main().
  const std::string raw =
      "the harness did not say hello: the harness died (exit status 127)\n"
      "harness stderr:\n/root/.cache/autoresearch/harness/cuda-0123/harness: error while loading shared "
      "libraries: libcuda.so.1: cannot open shared object file: No such file or directory";
  const std::string said = explain_fatal(raw);
  CHECK(said.find("no NVIDIA driver found (libcuda.so.1 is missing): check `nvidia-smi`") == 0);
  CHECK(said.find("error while loading") == std::string::npos);
  // Anything else passes through untouched.
  CHECK(explain_fatal("run x is in use by another autoresearch process") ==
        "run x is in use by another autoresearch process");
  CHECK(explain_fatal("kernel.cu mentions libcuda.so.1 in a comment") == "kernel.cu mentions libcuda.so.1 in a comment");
}

TEST_CASE("a filesystem error names the operation, the path, the reason and what to check") {
  std::filesystem::filesystem_error e("cannot create directories", "/repo/.autoresearch/runs/k-t",
                                      std::make_error_code(std::errc::permission_denied));
  const std::string said = explain_filesystem_error(e);
  CHECK(said.find("cannot create directories /repo/.autoresearch/runs/k-t: Permission denied.") == 0);
  CHECK(said.find("chmod") != std::string::npos);
  CHECK(said.find("df -h") != std::string::npos);
  CHECK(said.find("internal error") == std::string::npos);
}
