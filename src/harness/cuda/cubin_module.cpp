#include "cuda/cubin_module.h"

#include <sys/stat.h>

#include "common/device.h"
#include "cuda/cubin_symbols.h"
#include "cuda/cuda_check.h"

namespace ar::harness {

namespace {

constexpr int kMaxParams = 16;

using ParamInfoFn = CUresult (*)(CUfunction, size_t, size_t*, size_t*);

// cuFuncGetParamInfo appeared in CUDA 12.4; looked up at run time so the
// harness still starts (without the check) on an older driver.
ParamInfoFn param_info_fn() {
  static const ParamInfoFn fn = [] {
    void* p = nullptr;
    CUdriverProcAddressQueryResult status{};
    if (cuGetProcAddress("cuFuncGetParamInfo", &p, 12040, CU_GET_PROC_ADDRESS_DEFAULT, &status) !=
            CUDA_SUCCESS ||
        status != CU_GET_PROC_ADDRESS_SUCCESS)
      return static_cast<ParamInfoFn>(nullptr);
    return reinterpret_cast<ParamInfoFn>(p);
  }();
  return fn;
}

// Parameter sizes of f, in order; false when the driver cannot say.
bool param_sizes(CUfunction f, std::vector<size_t>* sizes) {
  ParamInfoFn fn = param_info_fn();
  if (!fn) return false;
  sizes->clear();
  for (int i = 0; i < kMaxParams; ++i) {
    size_t offset = 0, size = 0;
    const CUresult r = fn(f, static_cast<size_t>(i), &offset, &size);
    if (r == CUDA_ERROR_INVALID_VALUE) break;   // past the last parameter
    if (r != CUDA_SUCCESS) return false;
    sizes->push_back(size);
  }
  return true;
}

std::string list(const std::vector<size_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]) + " B";
  return s + ")";
}

}  // namespace

CubinModule::CubinModule(const std::string& path, const std::string& slot) : path_(path), slot_(slot) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0)
    throw HarnessError("load_error", "cannot load '" + path + "': no such file", slot);
  // The image the driver loads is the one whose symbol table is read: both from these bytes.
  std::vector<unsigned char> image;
  std::vector<CubinVariable> variables;
  try {
    image = read_file_bytes(path);
    variables = cubin_variables(image);
  } catch (const CubinFormatError& e) {
    throw HarnessError("load_error", "cannot load '" + path + "': " + e.what(), slot);
  }
  const CUresult r = cuModuleLoadData(&module_, image.data());
  if (r != CUDA_SUCCESS) {
    module_ = nullptr;
    if (is_sticky(r)) throw_cuda_error(r, "fault", "cuModuleLoadData", __FILE__, __LINE__);
    throw HarnessError("load_error",
                       "cannot load '" + path + "' as a cubin for this GPU: " +
                           describe(r, "cuModuleLoadData", __FILE__, __LINE__),
                       slot);
  }
  try {
    auto find = [&](const char* name, bool required) -> CUfunction {
      CUfunction f = nullptr;
      const CUresult fr = cuModuleGetFunction(&f, module_, name);
      if (fr == CUDA_ERROR_NOT_FOUND) {
        if (required)
          throw HarnessError("load_error",
                             "'" + path + "' has no kernel " + name +
                                 " (a CUDA package's cubin exports extern \"C\" ar_plan and ar_stage0..3)",
                             slot);
        return nullptr;
      }
      AR_CU("load_error", fr);
      return f;
    };
    params_known_ = true;
    auto add_entry = [&](const std::string& prefix, bool need_stage0) {
      Entry e;
      e.prefix = prefix;
      e.plan = find((prefix + "plan").c_str(), true);
      for (int i = 0; i < kMaxLaunchStages; ++i)
        e.stages[i] = find((prefix + "stage" + std::to_string(i)).c_str(), i == 0 && need_stage0);
      if (params_known_) params_known_ = param_sizes(e.plan, &e.plan_params);
      for (int i = 0; i < kMaxLaunchStages && params_known_; ++i)
        if (e.stages[i]) params_known_ = param_sizes(e.stages[i], &e.stage_params[i]);
      entries_.push_back(std::move(e));
    };
    auto has = [&](const std::string& name) {
      CUfunction f = nullptr;
      return cuModuleGetFunction(&f, module_, name.c_str()) == CUDA_SUCCESS;
    };
    int dispatch_variants = 0;
    while (dispatch_variants < kMaxDispatchVariants && has("ar_k" + std::to_string(dispatch_variants + 1) + "_plan"))
      ++dispatch_variants;
    add_entry("ar_", dispatch_variants == 0);
    for (int k = 1; k <= dispatch_variants; ++k) add_entry("ar_k" + std::to_string(k) + "_", true);
    for (const CubinVariable& v : variables) {
      if (v.size == 0) continue;
      ModuleGlobal g{v.name, v.section, 0, 0, v.constant()};
      const CUresult gr = cuModuleGetGlobal(&g.ptr, &g.bytes, module_, v.name.c_str());
      if (gr != CUDA_SUCCESS) {
        if (is_sticky(gr)) throw_cuda_error(gr, "fault", "cuModuleGetGlobal", __FILE__, __LINE__);
        throw HarnessError("load_error",
                           "'" + path + "': cannot locate its variable `" + v.name + "` (" + v.section +
                               ", " + std::to_string(v.size) + " bytes) to watch it between launches: " +
                               describe(gr, "cuModuleGetGlobal", __FILE__, __LINE__),
                           slot);
      }
      globals_.push_back(std::move(g));
    }
  } catch (...) {
    AR_CU_WARN(cuModuleUnload(module_));   // the error being thrown is the one to report
    module_ = nullptr;
    throw;
  }
}

CubinModule::~CubinModule() {
  if (!module_) return;
  AR_CU_WARN(cuModuleUnload(module_));
}

const CubinModule::Entry& CubinModule::entry(int variant) const {
  if (variant < 0 || variant >= static_cast<int>(entries_.size()))
    throw HarnessError("load_error",
                       "the plan delegates to variant " + std::to_string(variant) + " but '" + path_ +
                           "' has no kernel ar_k" + std::to_string(variant) + "_plan",
                       slot_);
  return entries_[static_cast<size_t>(variant)];
}

CUfunction CubinModule::plan(int variant) const { return entry(variant).plan; }

CUfunction CubinModule::stage(int i, int variant) const {
  const Entry& e = entry(variant);
  if (i < 0 || i >= kMaxLaunchStages || !e.stages[i])
    throw HarnessError("load_error",
                       "the plan launches stage " + std::to_string(i) + " but '" + path_ + "' has no kernel " +
                           e.prefix + "stage" + std::to_string(i),
                       slot_);
  return e.stages[i];
}

void CubinModule::check_params(size_t blob_bytes) const {
  if (!params_known_) return;
  const std::vector<size_t> want_plan = {blob_bytes, sizeof(int), sizeof(void*)};
  for (const Entry& e : entries_) {
    if (e.plan_params != want_plan)
      throw HarnessError("load_error",
                         e.prefix + "plan's parameters are " + list(e.plan_params) + ", expected " + list(want_plan) +
                             ": (Params p, int num_sms, ar::LaunchPlan* plan) with the package's " +
                             std::to_string(blob_bytes) + "-byte params struct (is the kernel built "
                             "against this package's params header?)",
                         slot_);
    for (int i = 0; i < kMaxLaunchStages; ++i) {
      if (!e.stages[i]) continue;
      const std::vector<size_t> want = {blob_bytes};
      if (e.stage_params[i] != want)
        throw HarnessError("load_error",
                           e.prefix + "stage" + std::to_string(i) + "'s parameters are " + list(e.stage_params[i]) +
                               ", expected one " + std::to_string(blob_bytes) +
                               "-byte params struct passed by value",
                           slot_);
    }
  }
}

}  // namespace ar::harness
