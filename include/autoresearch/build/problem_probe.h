#pragma once
// The dry-run probe: the package's problem sources (manifest harness.sources)
// compiled for the host with src/harness/probe/ instead of the harness, so
// `verify --dry-run` can ask the problem, without the device, what it declares
// (its outputs and workload params) and which workload sizes it rejects.
#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autoresearch/build/builder.h"

namespace ar {

struct ProbeWorkload {
  std::string where;        // the manifest field it comes from: "workloads[2] (odd)", "hidden_workloads (lowest)"
  nlohmann::json params;
};

struct ProbeReport {
  std::vector<std::string> outputs;   // Problem::output_names(); empty: not declared
  std::vector<std::string> params;    // Problem::param_names(); empty: not declared
  struct Verdict {
    bool ok = true;
    std::string error;                // the problem's ProblemError
    long long rotation_bytes = 0;
  };
  std::vector<Verdict> workloads;     // one per ProbeWorkload, in order
};

// Compiled once per (problem sources, probe sources, toolchain) into the
// harness cache. Throws Fatal(kExitUsage) with the compiler's errors when the
// problem does not compile (a mistake in the package), Fatal(kExitInfrastructure)
// when the compiler cannot run.
std::filesystem::path build_probe(const Manifest& m, const Paths& p, const Toolchain& tc, ProcessRunner& runner,
                                  const std::atomic<bool>* cancel);

// Runs it on the workloads; Fatal(kExitUsage) when make_problem() throws.
ProbeReport run_probe(const std::filesystem::path& exe, const std::vector<ProbeWorkload>& workloads,
                      ProcessRunner& runner);

}  // namespace ar

namespace ar {

// What the dry run asks the problem about: every declared workload, and the
// two corners of the hidden ranges (every range at its lowest, then at its
// highest; choices by their smallest and largest number).
std::vector<ProbeWorkload> probe_workloads(const Manifest& m);

struct DryRunFindings {
  std::vector<std::string> errors;   // "FILE: FIELD: what is wrong": the manifest and the problem disagree
  std::vector<std::string> notes;    // what could not be checked, and why
};

// The manifest held against the problem's answers: tolerances that name no
// output of the problem, outputs with no tolerance, workload and hidden params
// the problem does not read, workloads (declared, corners, drawn) it rejects,
// and FLOP/byte formulas that cannot be evaluated on them.
DryRunFindings probe_findings(const Manifest& m, const std::vector<ProbeWorkload>& workloads,
                              const ProbeReport& report);

}  // namespace ar
