#pragma once
// The guard's two checks on a package's source as it is now, outside any
// candidate: the scope check (changed files must be editable) and the scan of
// the preprocessed source. `run` applies them to the starting kernel, and
// `verify` and `bench` to the checkout, so that a kernel these commands pass
// is one a run would accept, and a run never starts from a kernel whose every
// candidate the guard would reject for a line no candidate touched.
#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "autoresearch/agents/agent.h"
#include "autoresearch/build/builder.h"
#include "autoresearch/core/manifest.h"

namespace ar {

struct SourceCheck {
  enum class Status {
    Pass,
    Finding,            // a guard rule is broken: `finding` names the file and line
    DoesNotPreprocess,  // `finding` holds the compiler's message
    Cancelled,
  };
  Status status = Status::Pass;
  std::string finding;   // "kernel.cpp:12 reads the environment (getenv)"
  bool pass() const { return status == Status::Pass; }
  // One line for the output of verify/bench: "guard: scope and source scan passed"
  // or "guard: <finding>".
  std::string summary() const;
};

// `package_prefix`: the package folder relative to the repository
// ("kernels/matmul_cpu"); `changed_files`: repo-relative paths changed against
// the commit the source is judged from (git status), empty for a clean tree.
SourceCheck check_package_source(const Builder& builder, const Manifest& m, const std::filesystem::path& package_dir,
                                 const std::string& package_prefix, const std::vector<std::string>& changed_files,
                                 const Tunables& tunables, const std::atomic<bool>* cancel);

}  // namespace ar
