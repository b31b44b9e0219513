#pragma once
// A kernel package's manifest (kernels/<name>/manifest.json, SPEC §3): what the
// agent may edit, the tunables and their constraints, the workloads, the
// tolerances, the FLOP/byte formulas and the build. Parsed once, validated in
// full, and every error names the file, the field and what was expected.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autoresearch/util/expression.h"

namespace ar {

enum class Backend { Cpu, Cuda };
const char* backend_name(Backend b);

struct Tunable {
  std::string name;                 // a C identifier, passed as -DNAME=value
  std::vector<long long> values;    // allowed values, in the order the search treats as "neighbouring"
  long long default_value = 0;      // the starting point's value
  std::string help;
};

struct Workload {
  std::string name;
  nlohmann::json params;            // object; numbers (and 0/1 flags) the problem reads
  bool quick = false;               // in the screening set
  bool timed = false;               // in the benchmarked set (every workload is verified)
  bool hidden = false;              // drawn from ranges at verify time, never written to disk
};

struct Tolerance {
  std::string output;               // output name as the problem reports it
  double abs = 0;                   // |err| <= abs  or  |err| <= rel*|ref| passes an element
  double rel = 0;
  std::optional<double> cosine;     // max 1 - cos(out, ref) over the tensor
};

// One declared range a hidden workload parameter is drawn from.
struct HiddenParam {
  enum Kind { Fixed, IntRange, LogIntRange, Choice } kind = Fixed;
  nlohmann::json fixed;             // Fixed
  long long lo = 0, hi = 0;         // IntRange, LogIntRange (inclusive)
  std::vector<nlohmann::json> choices;  // Choice
};

struct HiddenWorkloads {
  int count = 0;                                  // drawn per full verification
  std::map<std::string, HiddenParam> params;
};

struct BuildSpec {
  std::vector<std::string> flags;   // extra compiler flags for the candidate
  std::string arch;                 // CUDA: e.g. sm_90 (nvcc -arch); CPU: unused
  double timeout_s = 120;
};

struct HarnessSpec {
  std::vector<std::string> sources; // protected problem/oracle sources, package-relative
  std::vector<std::string> flags;
};

// How `autoresearch dispatch` reads a shape inside the kernel: the package's
// params struct (its header and type name) and, per workload param, a C++
// expression over `p` (a const reference to that struct) giving its value, so a
// generated ar_plan can pick a variant from the shapes of any workload.
struct DispatchSpec {
  std::string params_header;                                 // package-relative
  std::string params_type;
  std::vector<std::pair<std::string, std::string>> shape;    // workload param -> expression over p
};

struct Manifest {
  std::filesystem::path file;       // absolute path of manifest.json
  std::filesystem::path dir;        // the package folder
  std::string name;
  std::string description;
  Backend backend = Backend::Cpu;

  std::vector<std::string> editable;   // package-relative; the tunables file is always editable
  std::string kernel_source;           // package-relative, the file compiled as the candidate
  std::string tunables_file;           // package-relative JSON object {NAME: value}
  BuildSpec build;
  HarnessSpec harness;

  std::vector<Tunable> tunables;
  std::vector<Expression> constraints;

  std::vector<Workload> workloads;     // declared (not hidden)
  HiddenWorkloads hidden;

  std::optional<Expression> flops;     // per workload, over its numeric params
  std::optional<Expression> bytes;

  std::vector<Tolerance> tolerances;
  bool deterministic = true;           // two runs must agree bitwise

  std::vector<std::string> context_files;  // repo-relative (context/hardware/..., context/models/...)
  std::vector<std::string> rules;          // package-specific "do not" rules for agents
  std::optional<DispatchSpec> dispatch;    // absent: `autoresearch dispatch` says what to declare

  const Tunable* find_tunable(const std::string& name) const;
  const Workload* find_workload(const std::string& name) const;   // declared ones only
  std::vector<const Workload*> quick_workloads() const;
  std::vector<const Workload*> timed_workloads() const;
  std::map<std::string, long long> default_tunables() const;
};

// Reads and validates; throws ar::Fatal(kExitUsage) with "FILE: FIELD: what is
// wrong (expected ...)" on the first problem found.
Manifest load_manifest(const std::filesystem::path& manifest_file);
Manifest parse_manifest(const nlohmann::json& doc, const std::filesystem::path& manifest_file);

// Numeric view of a workload's params (numbers and booleans), for the formulas.
std::map<std::string, double> numeric_params(const nlohmann::json& params);

// Checks every constraint; *why names the first that fails (or cannot be evaluated).
bool satisfies_constraints(const Manifest& m, const std::map<std::string, long long>& tunables,
                           std::string* why);

// Reads the tunables file ({NAME: int}); missing names take their defaults,
// unknown names or values outside the allowed list throw usage errors.
std::map<std::string, long long> read_tunables_file(const Manifest& m,
                                                    const std::filesystem::path& file);
// The same for a text (an agent's new tunables file); `origin` names it in errors.
std::map<std::string, long long> parse_tunables_text(const Manifest& m, const std::string& text,
                                                     const std::string& origin);
std::string tunables_to_json_text(const std::map<std::string, long long>& t);

}  // namespace ar
