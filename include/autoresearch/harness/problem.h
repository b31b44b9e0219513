#pragma once
// What a kernel package implements so the protected harness can verify and time
// its kernel (SPEC §3, §6). The package's problem source (protected, never
// editable by an agent) defines make_problem(). The harness owns the procedure
// (poison, order candidate -> reference -> candidate, checksums, timing); the
// problem owns the data: inputs, the independent reference, the comparison.
//
// Host C++ only in this header, so it compiles in both harnesses (g++ for CPU
// packages, nvcc for CUDA ones).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ar::harness {

// A bad workload description: the message names the parameter.
struct ProblemError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Tolerance {
  std::string output;
  double abs = 0;
  double rel = 0;
  double cosine = -1;   // max allowed 1 - cos(out, ref); < 0: not checked
};

// One output compared against the reference (the worst over every element).
struct OutputCheck {
  std::string output;
  bool pass = true;
  double max_abs_err = 0;
  double max_rel_err = 0;     // over elements with |ref| > 0
  double cosine_diff = 0;     // 1 - cos(out, ref)
  long long mismatches = 0;   // elements outside abs and rel
  long long nonfinite = 0;    // NaN/Inf where the reference has none (or in other places)
  long long elements = 0;
  std::string detail;         // first failing element, e.g. "out[3,0,17,5]=nan ref=0.0123"
};

class Problem {
 public:
  virtual ~Problem() = default;

  // Bytes one rotation (one independent set of inputs and outputs) occupies, so
  // the harness can rotate over at least twice the last-level cache. Called
  // before prepare(); throws ProblemError on a bad workload.
  virtual size_t rotation_bytes(const nlohmann::json& params) = 0;
  // Allocates `rotations` independent input/output sets for the workload.
  virtual void prepare(const nlohmann::json& params, int rotations) = 0;
  // Frees everything prepare() allocated.
  virtual void release() = 0;

  // Fresh inputs for one rotation from a seed; distribution d in [0, distributions()).
  virtual int distributions() const = 0;
  virtual std::string distribution_name(int d) const = 0;
  virtual void randomize(int rotation, uint64_t seed, int distribution) = 0;

  // Fills every output element with NaN (or the type's poison pattern).
  virtual void poison_outputs(int rotation) = 0;
  // A fingerprint of all inputs (to catch a kernel that writes to them).
  virtual std::string input_fingerprint(int rotation) = 0;
  // A bitwise fingerprint of all outputs (two runs must agree when deterministic).
  virtual std::string output_fingerprint(int rotation) = 0;

  // The independent reference for the rotation's current inputs; writes its own
  // buffers, never the candidate's outputs.
  virtual void run_reference(int rotation) = 0;
  // A fingerprint of the reference's results for the rotation (what check()
  // compares against), so the harness can prove that no kernel launched after
  // run_reference() wrote into them (SPEC §6: the verdict is out of the
  // candidate's reach). Keyed with a secret the kernel cannot know. "" means
  // the problem cannot fingerprint them: the harness then re-runs the
  // reference right before every check, after the kernel's last launch.
  virtual std::string reference_fingerprint(int /*rotation*/) { return ""; }
  // Compares the candidate's outputs with the reference (every element), and the
  // reference itself against a float64 evaluation of sampled rows where the
  // package has one. `sample_seed` picks the rows.
  virtual std::vector<OutputCheck> check(int rotation, const std::vector<Tolerance>& tolerances,
                                         uint64_t sample_seed) = 0;

  // The kernel's single argument: a plain struct whose layout the package's
  // kernel and problem share. Valid until release().
  virtual const void* params(int rotation, size_t* size) = 0;
  // CUDA: byte offset of a `void*` scratch-workspace field inside the params
  // struct, which the harness fills per slot; -1 when there is none.
  virtual long workspace_offset() const { return -1; }

  // What the problem says about itself, so `autoresearch verify --dry-run` can
  // hold the manifest against it on a machine without the device (neither
  // needs prepare()). Empty: not declared, and the dry run says it could not check.
  // The outputs check() reports, by name: each needs a tolerance in the manifest.
  virtual std::vector<std::string> output_names() const { return {}; }
  // The workload params it reads: a workload naming any other is a typo.
  virtual std::vector<std::string> param_names() const { return {}; }
};

// Defined by the package's problem source.
std::unique_ptr<Problem> make_problem();

}  // namespace ar::harness
