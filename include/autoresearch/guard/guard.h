#pragma once
// Guards run after the agent edits and before anything is built (SPEC §6):
// a candidate that touches what it may not, or whose source reaches for the
// tools of a cheat, is rejected_by_guard with the finding as the reason.
#include <filesystem>
#include <string>
#include <vector>

#include "autoresearch/core/manifest.h"

namespace ar {

struct GuardFinding {
  std::string rule;      // e.g. "scope", "host-thread", "timer", "static-cache"
  std::string where;     // "kernel.cu:42" or a path
  std::string excerpt;   // the offending tokens
};

struct GuardResult {
  bool pass = true;
  std::vector<GuardFinding> findings;
  std::string reason() const;   // one sentence naming the first finding(s)
};

// Every changed file (repo-relative, as git reports them) must be one of the
// package's editable files or its tunables file. `package_prefix` is the
// package folder relative to the repo root ("kernels/matmul_cpu").
GuardResult check_scope(const Manifest& m, const std::string& package_prefix,
                        const std::vector<std::string>& changed_files);

// Scans the compiler's preprocessed output (`-E`, line markers kept) of the
// candidate. Only tokens on lines whose markers point into one of
// `editable_files` (absolute paths) count, so system and CUDA headers never
// raise false alarms. Rules: host threads, side streams, graph/stream/event
// APIs, timers, static or __device__ mutable state (result caches),
// __attribute__((constructor)), file/env/network/process access, inline
// assembly reading timers.
GuardResult scan_preprocessed_source(const std::string& preprocessed,
                                     const std::vector<std::filesystem::path>& editable_files,
                                     Backend backend);

// What the build produced for one candidate (the builder keeps all of it in the
// candidate's build folder). Empty paths are parts that do not exist.
struct CompiledCode {
  std::filesystem::path binary;       // kernel.cubin / kernel.so (empty when the build wrote none)
  std::filesystem::path ptx;          // CUDA: the PTX nvcc generated on the way (kept even when ptxas failed)
  std::filesystem::path disassembly;  // cuobjdump -sass (CUDA) or objdump -d (CPU) output, when one ran
};

// Scans the compiled candidate, whatever its source spelled (SPEC §6: look at
// the cubin, not only at the source text):
//   CUDA: the PTX (clock and global-timer registers, %envreg/%gridid, every
//         .extern function: vprintf, device malloc/free, device-side launches,
//         .extern .global variables); the cubin's undefined symbols (only
//         compiler intrinsics such as __assertfail are allowed); the SASS when
//         a disassembler ran (S2R/CS2R/S2UR of SR_CLOCK*/SR_GLOBALTIMER*).
//   CPU:  the shared object's imports against an allow-list (memory, math, the
//         C++ runtime's allocation and exceptions), load-time code
//         (.init_array/.fini_array beyond the C runtime's), thread-local
//         storage, function-local statics (__cxa_guard_acquire); the
//         disassembly (rdtsc, rdtscp, rdpmc, syscall, sysenter, int $0x80).
// Findings name the file and line (kernel.ptx:57) or the symbol.
GuardResult scan_compiled_code(const CompiledCode& code, Backend backend);

}  // namespace ar
