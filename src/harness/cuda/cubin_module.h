#pragma once
// One candidate cubin loaded into the harness's context (driver API), with the
// entry points of the ABI in include/autoresearch/harness/launch_plan.h:
// ar_plan and ar_stage0 are required, ar_stage1..3 optional until a plan asks
// for them. A dispatch cubin holds variants k = 1, 2, ... (ar_k<k>_plan,
// ar_k<k>_stage0..3) that its ar_plan delegates to; it needs no ar_stage0 of
// its own. Device code only: the cubin cannot bring host code into the harness.
//
// At load, every variable that outlives a launch (each __device__ /
// __constant__ symbol of the cubin's ELF symbol table, cubin_symbols.h) is
// located with cuModuleGetGlobal, so the harness can hash its bytes between
// launches (Device::module_state); a variable it cannot locate is a load_error
// (state the harness cannot see is refused, not trusted).
#include <cuda.h>

#include <string>
#include <vector>

#include "autoresearch/harness/launch_plan.h"

namespace ar::harness {

struct ModuleGlobal {
  std::string name;
  std::string section;   // ".nv.global", ".nv.global.init", ".nv.constant3", ...
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  bool constant = false;
};

class CubinModule {
 public:
  // Throws HarnessError("load_error") naming the file or the missing symbol.
  CubinModule(const std::string& path, const std::string& slot);
  ~CubinModule();
  CubinModule(const CubinModule&) = delete;
  CubinModule& operator=(const CubinModule&) = delete;

  // Variant 0 is the cubin's own ar_plan / ar_stage<i>; k >= 1 a dispatch variant.
  int variants() const { return static_cast<int>(entries_.size()) - 1; }
  // Throws load_error when the cubin has no such variant.
  CUfunction plan(int variant = 0) const;
  // Stage i of a plan with `num_stages` stages; throws load_error when the cubin lacks it.
  CUfunction stage(int i, int variant = 0) const;

  // The kernels' parameter sizes must match the params blob (ar_plan: blob,
  // int, pointer; stages: blob only). Throws load_error saying which differs.
  // Skipped where the driver cannot report parameters (cuFuncGetParamInfo, CUDA 12.4+).
  void check_params(size_t blob_bytes) const;

  const std::string& path() const { return path_; }
  const std::vector<ModuleGlobal>& globals() const { return globals_; }

 private:
  std::string path_;
  std::string slot_;
  // The entry points of one variant, with their parameter sizes in order
  // (empty when the driver cannot report them).
  struct Entry {
    std::string prefix;   // "ar_" or "ar_k<k>_"
    CUfunction plan = nullptr;
    CUfunction stages[kMaxLaunchStages] = {};
    std::vector<size_t> plan_params;
    std::vector<size_t> stage_params[kMaxLaunchStages];
  };
  const Entry& entry(int variant) const;

  CUmodule module_ = nullptr;
  std::vector<Entry> entries_;   // [0]: the cubin's own names
  bool params_known_ = false;
  std::vector<ModuleGlobal> globals_;
};

}  // namespace ar::harness
