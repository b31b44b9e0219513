#pragma once
// `autoresearch dispatch`: several verified variants of a CUDA kernel in one
// cubin, chosen per shape by a generated ar_plan. The variants are compiled in
// one translation unit, each inside its own namespace with its tunables
// defined and its entry points renamed ar_k<k>_plan and ar_k<k>_stage<i>
// (k = 1, 2, ...), followed by the selector: an ar_plan that delegates to the
// variant of the nearest known shape (include/autoresearch/harness/launch_plan.h,
// "Dispatch"). One translation unit, not relocatable device code joined by
// nvlink: measured on the H200 (2026-12-01), -rdc=true alone made the best's
// own code 4.5% slower on sparse_mla.
#include <atomic>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "autoresearch/build/builder.h"
#include "autoresearch/core/manifest.h"

namespace ar {

struct DispatchVariant {
  int candidate = 0;      // the run's candidate id (0: the start)
  std::string label;      // for messages and the generated comments
  std::string source;     // the kernel source text of the variant
  Tunables tunables;
};

// One known shape (a declared workload) and the variant (1-based) that serves it.
struct DispatchCase {
  std::string workload;
  std::vector<double> shape;   // in DispatchSpec::shape order
  int variant = 1;
};

// The shape of a workload as the selector sees it: its params in the order of
// the manifest's dispatch.shape (a param the workload lacks reads 0).
std::vector<double> dispatch_shape(const DispatchSpec& spec, const nlohmann::json& params);

// The distance the selector uses: squared differences of log2(1 + |x|), so a
// batch of 1 against 2 weighs as much as 64 against 128.
double dispatch_distance(const std::vector<double>& a, const std::vector<double>& b);

// The case the selector picks for a shape (the first of equally near ones);
// the host's copy of the generated rule, to say which variant a hidden workload gets.
const DispatchCase& nearest_case(const std::vector<DispatchCase>& cases, const std::vector<double>& shape);

// The generated selector translation unit. `origin` says where it came from (the run).
std::string dispatch_selector_source(const Manifest& m, const std::vector<DispatchCase>& cases, int variants,
                                     const std::string& origin);

// The renames (#define NAME RENAMED) that make a variant's entry points ar_k<k>_*.
std::vector<std::pair<std::string, std::string>> dispatch_renames(int variant);

struct DispatchBuild {
  BuildResult result;                            // artifact: out_dir/kernel.cubin
  std::vector<std::vector<std::string>> commands;   // the compile
};

// The whole translation unit: hoisted includes, each variant's namespace
// (defines, renames, #include of its file), then the selector.
std::string dispatch_translation_unit(const Manifest& m, const std::vector<DispatchVariant>& variants,
                                      const std::vector<std::filesystem::path>& variant_files,
                                      const std::vector<DispatchCase>& cases, const std::string& origin);

// Where build_dispatch writes the generated translation unit (its variants beside it).
std::filesystem::path dispatch_unit_path(const std::filesystem::path& out_dir);

// Builds the translation unit into out_dir/kernel.cubin.
// A CUDA package with a dispatch section only; result.errors says what failed.
DispatchBuild build_dispatch(const Builder& b, const std::vector<DispatchVariant>& variants,
                             const std::vector<DispatchCase>& cases, const std::string& origin,
                             const std::filesystem::path& out_dir, const std::atomic<bool>* cancel);

}  // namespace ar
