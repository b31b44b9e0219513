#pragma once
// `autoresearch dispatch`: several verified variants of a CUDA kernel in one
// cubin, chosen per shape by a generated ar_plan. Each variant is compiled as
// relocatable device code with its entry points renamed ar_k<k>_plan and
// ar_k<k>_stage<i> (k = 1, 2, ...), and nvlink joins them with the selector:
// an ar_plan that delegates to the variant of the nearest known shape
// (include/autoresearch/harness/launch_plan.h, "Dispatch").
#include <atomic>
#include <filesystem>
#include <string>
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

// The -D renames that make a variant's entry points ar_k<k>_*.
std::vector<std::string> dispatch_renames(int variant);

struct DispatchBuild {
  BuildResult result;                            // artifact: out_dir/kernel.cubin
  std::vector<std::vector<std::string>> commands;   // every compile and the link, in order
};

// Where build_dispatch writes the generated selector's source.
std::filesystem::path dispatch_selector_path(const std::filesystem::path& out_dir);

// Builds every variant (out_dir/variant_<k>/), the selector and the link.
// A CUDA package with a dispatch section only; result.errors says what failed.
DispatchBuild build_dispatch(const Builder& b, const std::vector<DispatchVariant>& variants,
                             const std::vector<DispatchCase>& cases, const std::string& origin,
                             const std::filesystem::path& out_dir, const std::atomic<bool>* cancel);

}  // namespace ar
