#pragma once
// Builds candidates and the harness. A CUDA candidate is compiled to device code
// only (a cubin) and loaded by the protected harness, so it cannot carry host
// code; a CPU candidate is a shared object. Tunables become -D defines.
#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autoresearch/agents/agent.h"
#include "autoresearch/core/manifest.h"
#include "autoresearch/core/paths.h"

namespace ar {

class ProcessRunner;

struct Toolchain {
  std::string compiler;       // absolute path or name on PATH
  std::string version;        // first line of --version
  // Prints the artifact's machine code for the compiled-code scan: CUDA
  // cuobjdump (or nvdisasm) next to nvcc or on PATH, CPU objdump; "" when none
  // is installed (the scan then reads the PTX and the symbol tables only).
  std::string disassembler = {};
};

// CPU: $CXX or c++; CUDA: $NVCC, nvcc on PATH, or /usr/local/cuda/bin/nvcc.
// nullopt + *why when the compiler cannot be found or run.
std::optional<Toolchain> detect_toolchain(Backend b, ProcessRunner& runner, std::string* why);

struct BuildResult {
  bool ok = false;
  bool timed_out = false;
  bool cancelled = false;
  double seconds = 0;
  std::string errors;                  // the compiler's messages when it failed (tail)
  std::optional<int> registers;        // CUDA: most registers of any stage kernel
  std::optional<int> spill_bytes;      // CUDA: spill stores, summed
  // CUDA: what ptxas says costs speed in a stage kernel ("Potential Performance Loss": wgmma serialised, ...),
  // one line each, "ar_stage0: (C7520) wgmma.mma_async instructions are serialized due to ...", deduplicated.
  std::vector<std::string> ptxas_warnings;
  std::filesystem::path artifact;
  // For the compiled-code scan (guard.h: CompiledCode), in the build folder:
  std::filesystem::path ptx;           // CUDA: the PTX nvcc generated (--keep), even when ptxas then failed
  std::filesystem::path disassembly;   // kernel.sass / kernel.dis, when the toolchain has a disassembler
  std::string disassembly_note;        // why there is none ("no disassembler installed", its error)
};

class Builder {
 public:
  Builder(const Manifest& m, const Paths& p, Toolchain tc, ProcessRunner& runner);

  // CUDA: -cubin, with --keep into the artifact's folder so the PTX nvcc makes
  // on the way stays for the scan (measured on kernels/sparse_mla: no slower
  // than without; a second -ptx pass would cost ~70% more compile time).
  std::vector<std::string> compile_argv(const std::filesystem::path& package_dir, const Tunables& t,
                                        const std::filesystem::path& artifact) const;
  std::vector<std::string> compile_argv(const std::filesystem::path& source, const std::filesystem::path& package_dir,
                                        const Tunables& t, const std::vector<std::string>& extra_flags,
                                        const std::filesystem::path& artifact) const;
  // The disassembler's argv for an artifact (empty when there is none).
  std::vector<std::string> disassemble_argv(const std::filesystem::path& artifact) const;
  // The same flags and defines with -E (line markers kept), for the guard's scan.
  std::vector<std::string> preprocess_argv(const std::filesystem::path& package_dir,
                                           const Tunables& t) const;

  BuildResult build(const std::filesystem::path& package_dir, const Tunables& t,
                    const std::filesystem::path& out_dir, const std::atomic<bool>* cancel) const;
  // The same for a kernel source anywhere (a variant's text from the history),
  // its includes found in package_dir as the package's own are, with
  // `extra_flags` after the package's (dispatch: -rdc=true and the renames).
  BuildResult build_source(const std::filesystem::path& source, const std::filesystem::path& package_dir,
                           const Tunables& t, const std::vector<std::string>& extra_flags,
                           const std::filesystem::path& out_dir, const std::atomic<bool>* cancel) const;
  // Preprocessed source text; nullopt + *errors when preprocessing fails.
  std::optional<std::string> preprocess(const std::filesystem::path& package_dir, const Tunables& t,
                                        std::string* errors, const std::atomic<bool>* cancel) const;

  // Compiler version and flags: part of the result cache key.
  std::string identity() const;
  const char* artifact_name() const;
  const Toolchain& toolchain() const { return tc_; }
  const Manifest& manifest() const { return m_; }
  ProcessRunner& runner() const { return runner_; }

 private:
  // Runs the disassembler on r.artifact into the build folder (r.disassembly),
  // or says in r.disassembly_note why not.
  void disassemble(BuildResult& r, const std::atomic<bool>* cancel) const;

  const Manifest& m_;
  Paths paths_;
  Toolchain tc_;
  ProcessRunner& runner_;
};

// Hash of everything the harness is built from (harness sources, the package's
// protected files, the toolchain): the harness/oracle part of the cache key.
std::string harness_hash(const Manifest& m, const Paths& p, const Toolchain& tc);

// Builds the package's harness once per hash into <repo>/.autoresearch/harness/<hash>/
// and returns the executable. Throws Fatal(kExitInfrastructure) with the
// compiler's errors when the protected harness does not build.
std::filesystem::path build_harness(const Manifest& m, const Paths& p, const Toolchain& tc,
                                    ProcessRunner& runner, const std::atomic<bool>* cancel);

// Parses ptxas -v output: max registers over ar_stage* kernels, summed spill stores, and ptxas's
// performance warnings about them.
void parse_ptxas_report(const std::string& text, BuildResult& r);

// What a build record says of the code (the log, the agents' context): registers, spills and, where
// there are any, ptxas's performance warnings.
nlohmann::json build_report_json(const BuildResult& r);

}  // namespace ar
