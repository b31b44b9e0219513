// The CUDA backend of the harness (device.h): candidates are cubins loaded
// with the driver API into named slots; bind() runs the candidate's ar_plan,
// allocates its workspace and captures one CUDA graph per rotation; time_once()
// replays a graph between two events, after an L2 flush when cold. Before
// every launch, eager or timed, the slot's workspace is filled with 0xFF again
// (outside the timed region), so nothing a launch leaves there reaches the
// next one, and the tensor maps the plan asked for are written into it again
// (tensor_maps.h); module_state() hashes the cubin's __device__ / __constant__
// variables (cubin_module.h) for the state watch.
//
// One stream, created blocking, so the problem's own kernels (legacy default
// stream) are ordered with the candidate's without extra synchronisation.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "common/device.h"
#include "cuda/cubin_module.h"
#include "cuda/cuda_check.h"
#include "cuda/device_info.h"
#include "cuda/nvml.h"
#include "cuda/pad_kernel.h"
#include "cuda/state_hash.h"
#include "cuda/tensor_map_check.h"
#include "cuda/tensor_maps.h"

namespace ar::harness {

namespace {

constexpr size_t kMinFlushBytes = size_t{256} << 20;   // >= 2x the H200's 60 MB L2
constexpr unsigned long long kMaxWorkspaceBytes = 64ull << 30;
// The workspace is allocated and re-poisoned in whole 2 MiB pages (the
// allocation granularity), so the slack past the plan's size cannot carry
// anything from one launch to the next either.
constexpr unsigned long long kWorkspaceGranule = 2ull << 20;

std::string dims(const unsigned d[3]) {
  return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + ")";
}

// A stage's thread-block cluster: the plan's (its flags, along x) or the kernel's own (__cluster_dims__,
// compiled in; launched without the cluster attribute, which the driver would refuse beside it).
struct StageCluster {
  unsigned dims[3] = {1, 1, 1};
  bool compiled = false;
  unsigned size() const { return dims[0] * dims[1] * dims[2]; }
};

// What bind() made for one slot. Destroyed before the problem's buffers go.
struct Binding {
  LaunchPlan plan{};
  std::vector<CUfunction> stages;
  std::vector<StageCluster> clusters;               // per stage
  void* workspace = nullptr;
  size_t workspace_alloc = 0;                       // the plan's bytes rounded up to kWorkspaceGranule
  std::vector<std::vector<unsigned char>> params;   // per rotation, workspace pointer patched in
  std::vector<std::vector<EncodedTensorMap>> maps;  // per rotation: the plan's tensor maps over its buffers
  Problem* problem = nullptr;                       // re-read before each launch (refresh_params)
  long workspace_offset = -1;
  std::vector<cudaGraphExec_t> graphs;              // per rotation
  long long pad_cycles = -1;                        // spin kernel after the stages; < 0: none
  int variant = 0;                                  // the dispatch variant the plan chose (0: ar_stage*)

  Binding() = default;
  Binding(const Binding&) = delete;
  Binding& operator=(const Binding&) = delete;
  ~Binding() {
    for (cudaGraphExec_t g : graphs) AR_CUDA_WARN(cudaGraphExecDestroy(g));
    if (workspace) AR_CUDA_WARN(cudaFree(workspace));
  }
};

struct Slot {
  std::unique_ptr<CubinModule> module;
  std::unique_ptr<Binding> binding;   // reset before module (its graphs use the module's kernels)
};

class CudaDevice final : public Device {
 public:
  explicit CudaDevice(int gpu)
      : gpu_(gpu), facts_(read_device_facts(gpu)), nvml_(facts_.pci_bus_id, gpu) {
    AR_CUDA_CHECK(cudaStreamCreate(&stream_));
    AR_CUDA_CHECK(cudaEventCreate(&start_));
    AR_CUDA_CHECK(cudaEventCreate(&stop_));
    AR_CUDA_CHECK(cudaMalloc(&plan_buffer_, sizeof(LaunchPlan)));
  }

  ~CudaDevice() override {
    slots_.clear();
    if (flush_) AR_CUDA_WARN(cudaFree(flush_));
    AR_CUDA_WARN(cudaFree(plan_buffer_));
    AR_CUDA_WARN(cudaEventDestroy(start_));
    AR_CUDA_WARN(cudaEventDestroy(stop_));
    AR_CUDA_WARN(cudaStreamDestroy(stream_));
  }

  nlohmann::json info() override {
    if (!info_.is_null()) return info_;
    const std::string nvml_driver = nvml_.driver_version();
    info_ = {{"name", facts_.name},
             {"kind", "cuda"},
             {"cc", std::to_string(facts_.cc_major) + "." + std::to_string(facts_.cc_minor)},
             {"sm_count", facts_.sm_count},
             {"cache_bytes", facts_.l2_bytes},
             {"flush_bytes", flush_bytes()},
             {"memory_bytes", facts_.memory_bytes},
             {"smem_per_block_optin", facts_.smem_per_block_optin},
             {"pci_bus_id", facts_.pci_bus_id},
             {"driver", nvml_driver.empty() ? "cuda " + std::to_string(facts_.driver_version) : nvml_driver},
             {"cuda_driver_version", facts_.driver_version},
             {"cuda_runtime_version", facts_.runtime_version},
             {"nvml", nvml_.available()},
             {"default_sm_mhz", nvml_.default_sm_clock_mhz()},
             {"max_sm_mhz", nvml_.max_sm_clock_mhz()},
             {"temperature_c", nvml_.temperature_c()},
             {"peak_bytes_per_s", measure_copy_bytes_per_s(stream_)},
             {"peak_bytes_note", "device-to-device copy, bytes read + written"}};
    return info_;
  }

  size_t cache_bytes() override { return facts_.l2_bytes; }

  void load(const std::string& slot, const std::string& artifact) override {
    // A failed load leaves the slot empty, never holding the previous kernel.
    slots_.erase(slot);
    Slot s;
    s.module = std::make_unique<CubinModule>(artifact, slot);
    slots_[slot] = std::move(s);
  }

  bool loaded(const std::string& slot) const override { return slots_.count(slot) != 0; }

  void bind(const std::string& slot, Problem& problem, int rotations, double pad_us) override {
    Slot& s = slot_ref(slot);
    s.binding.reset();
    if (rotations < 1) throw HarnessError("bad_request", "bind: rotations must be >= 1", slot);

    size_t blob_bytes = 0;
    const void* blob0 = problem.params(0, &blob_bytes);
    const long ws_offset = problem.workspace_offset();
    if (ws_offset >= 0 && static_cast<size_t>(ws_offset) + sizeof(void*) > blob_bytes)
      throw HarnessError("problem_error", "the problem's workspace_offset lies outside its params", slot);
    s.module->check_params(blob_bytes);

    auto b = std::make_unique<Binding>();
    b->plan = run_plan(s.module->plan(), blob0, blob_bytes, ws_offset);
    int variant = 0;
    if (b->plan.num_stages == 0 && b->plan.status == 0 && b->plan.delegate != 0) {
      // A dispatch cubin: its ar_plan chose a variant, whose own plan decides the launch.
      variant = b->plan.delegate;
      if (variant < 1 || variant > s.module->variants())
        throw HarnessError("launch_error",
                           "ar_plan delegates to variant " + std::to_string(variant) + "; the cubin holds " +
                               (s.module->variants() ? "1.." + std::to_string(s.module->variants()) : "none"),
                           slot);
      b->plan = run_plan(s.module->plan(variant), blob0, blob_bytes, ws_offset);
    }
    b->stages = validate_plan(*s.module, b->plan, variant, slot);
    b->clusters = stage_clusters(b->plan, b->stages, slot);
    if (auto why = tensor_map_plan_problem(b->plan, blob_bytes); !why.empty())
      throw HarnessError("launch_error", "ar_plan: " + why, slot);
    if (requested_tensor_maps(b->plan) > 0 && ws_offset < 0)
      throw HarnessError("launch_error",
                         "ar_plan asks for tensor maps, but this problem's params have no workspace pointer "
                         "through which the kernel could read them",
                         slot);
    b->variant = variant;

    if (b->plan.workspace_bytes > 0) {
      b->workspace_alloc = static_cast<size_t>((b->plan.workspace_bytes + kWorkspaceGranule - 1) /
                                               kWorkspaceGranule * kWorkspaceGranule);
      const cudaError_t e = cudaMalloc(&b->workspace, b->workspace_alloc);
      if (e != cudaSuccess) {
        b->workspace = nullptr;
        throw_cuda_error(e, "launch_error",
                         ("cudaMalloc of the plan's " + std::to_string(b->plan.workspace_bytes) +
                          "-byte workspace")
                             .c_str(),
                         __FILE__, __LINE__);
      }
      // Never zeros: a kernel that needs zeros writes them itself.
      AR_CUDA_CHECK(cudaMemsetAsync(b->workspace, 0xFF, b->workspace_alloc, stream_));
    }
    for (int i = 0; i < b->plan.num_stages; ++i)
      AR_CU("launch_error",
            cuFuncSetAttribute(b->stages[i], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               static_cast<int>(b->plan.stage[i].shared_bytes)));
    prepare_clusters(*b, slot);

    b->problem = &problem;
    b->workspace_offset = ws_offset;
    b->params.resize(rotations);
    b->maps.resize(rotations);
    for (int r = 0; r < rotations; ++r) {
      b->params[r] = current_params(*b, r, slot);
      b->maps[r] = encode_tensor_maps(b->plan, b->params[r], b->workspace, slot);
    }
    if (pad_us >= 0) b->pad_cycles = pad_cycles(pad_us, pad_clock_mhz());
    for (int r = 0; r < rotations; ++r) b->graphs.push_back(capture(*b, r, slot));
    AR_CUDA_CHECK(cudaStreamSynchronize(stream_));
    s.binding = std::move(b);
  }

  void unbind_all() override {
    for (auto& [name, s] : slots_) s.binding.reset();
  }

  nlohmann::json launch_signature(const std::string& slot) override {
    const Binding& b = binding_ref(slot, 0);
    nlohmann::json stages = nlohmann::json::array();
    for (int i = 0; i < b.plan.num_stages; ++i) {
      const LaunchStage& st = b.plan.stage[i];
      nlohmann::json stage = {{"block", {st.block[0], st.block[1], st.block[2]}}, {"shared_bytes", st.shared_bytes}};
      // A cluster launch runs code a plain one does not (a kernel's cluster merge): another path to sanitize.
      if (const unsigned cluster = b.clusters[i].size(); cluster > 1) stage["cluster"] = cluster;
      stages.push_back(std::move(stage));
    }
    return {{"variant", b.variant}, {"stages", stages}};
  }

  nlohmann::json launch_occupancy(const std::string& slot) override {
    const Binding& b = binding_ref(slot, 0);
    nlohmann::json stages = nlohmann::json::array();
    for (int i = 0; i < b.plan.num_stages; ++i) {
      const LaunchStage& st = b.plan.stage[i];
      const long long blocks = static_cast<long long>(st.grid[0]) * st.grid[1] * st.grid[2];
      const StageCluster& c = b.clusters[i];
      const unsigned cluster = c.size();
      long long resident = 0;   // blocks the device holds at once
      if (cluster > 1) {
        CUlaunchAttribute attr{};
        attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attr.value.clusterDim.x = c.dims[0];
        attr.value.clusterDim.y = c.dims[1];
        attr.value.clusterDim.z = c.dims[2];
        CUlaunchConfig config = launch_config(st);
        config.attrs = &attr;
        config.numAttrs = c.compiled ? 0 : 1;
        int clusters = 0;
        AR_CU("launch_error", cuOccupancyMaxActiveClusters(&clusters, b.stages[i], &config));
        resident = static_cast<long long>(clusters) * cluster;
      } else {
        int per_sm = 0;
        AR_CU("launch_error", cuOccupancyMaxActiveBlocksPerMultiprocessor(
                                  &per_sm, b.stages[i], static_cast<int>(st.block[0] * st.block[1] * st.block[2]),
                                  st.shared_bytes));
        resident = static_cast<long long>(per_sm) * facts_.sm_count;
      }
      nlohmann::json stage = {{"blocks", blocks}, {"resident_blocks", resident},
                              {"waves", resident > 0 ? (blocks + resident - 1) / resident : -1}};
      if (cluster > 1) stage["resident_clusters"] = resident / cluster;
      stages.push_back(std::move(stage));
    }
    return {{"sm_count", facts_.sm_count}, {"stages", stages}};
  }

  void run(const std::string& slot, int rotation) override {
    Binding& b = binding_ref(slot, rotation);
    refresh_params(b, rotation, slot);
    repoison_workspace(b, rotation);
    for (int i = 0; i < b.plan.num_stages; ++i) launch(b, i, rotation);
    AR_CUDA("launch_error", cudaStreamSynchronize(stream_));
  }

  double time_once(const std::string& slot, int rotation, bool cold) override {
    Binding& b = binding_ref(slot, rotation);
    refresh_params(b, rotation, slot);
    repoison_workspace(b, rotation);   // before the flush: its lines are evicted too
    if (cold) flush_l2();
    AR_CUDA_CHECK(cudaEventRecord(start_, stream_));
    AR_CU("launch_error", cuGraphLaunch(b.graphs[rotation], stream_));
    AR_CUDA_CHECK(cudaEventRecord(stop_, stream_));
    AR_CUDA("launch_error", cudaEventSynchronize(stop_));
    float ms = 0;
    AR_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return static_cast<double>(ms) * 1000.0;
  }

  std::vector<ModuleVariable> module_state(const std::string& slot) override {
    const CubinModule& m = *slot_ref(slot).module;
    std::vector<ModuleVariable> out;
    std::vector<HashRegion> device_regions;
    std::vector<size_t> device_index;
    for (const ModuleGlobal& g : m.globals()) {
      out.push_back(ModuleVariable{g.name, g.section, g.bytes, ""});
      if (g.constant) {
        out.back().hash = hasher_.copied(HashRegion{g.ptr, g.bytes});   // a constant bank: 64 KiB at most
      } else {
        device_regions.push_back(HashRegion{g.ptr, g.bytes});
        device_index.push_back(out.size() - 1);
      }
    }
    const std::vector<std::string> hashes = hasher_.device(device_regions, stream_);
    for (size_t i = 0; i < hashes.size(); ++i) out[device_index[i]].hash = hashes[i];
    return out;
  }

  double sm_clock_mhz() override { return nvml_.sm_clock_mhz(); }
  double default_sm_clock_mhz() override { return nvml_.default_sm_clock_mhz(); }
  double temperature_c() override { return nvml_.temperature_c(); }
  void synchronize() override { AR_CUDA("launch_error", cudaDeviceSynchronize()); }

 private:
  Slot& slot_ref(const std::string& slot) {
    auto it = slots_.find(slot);
    if (it == slots_.end()) throw HarnessError("bad_request", "slot '" + slot + "' is not loaded", slot);
    return it->second;
  }

  Binding& binding_ref(const std::string& slot, int rotation) {
    Slot& s = slot_ref(slot);
    if (!s.binding) throw HarnessError("bad_request", "slot '" + slot + "' is not bound to a workload", slot);
    if (rotation < 0 || rotation >= static_cast<int>(s.binding->graphs.size()))
      throw HarnessError("bad_request", "rotation " + std::to_string(rotation) + " out of range", slot);
    return *s.binding;
  }

  // ar_plan<<<1, 1>>>(params with a null workspace, num_sms, plan) on a buffer
  // poisoned with 0xFF, so a plan that leaves fields unwritten is caught.
  LaunchPlan run_plan(CUfunction plan_fn, const void* blob0, size_t blob_bytes, long ws_offset) {
    std::vector<unsigned char> blob(static_cast<const unsigned char*>(blob0),
                                    static_cast<const unsigned char*>(blob0) + blob_bytes);
    if (ws_offset >= 0) std::memset(blob.data() + ws_offset, 0, sizeof(void*));
    int num_sms = facts_.sm_count;
    void* plan_ptr = plan_buffer_;
    void* args[] = {blob.data(), &num_sms, &plan_ptr};
    AR_CUDA_CHECK(cudaMemsetAsync(plan_buffer_, 0xFF, sizeof(LaunchPlan), stream_));
    AR_CU("launch_error", cuLaunchKernel(plan_fn, 1, 1, 1, 1, 1, 1, 0, stream_, args, nullptr));
    AR_CUDA("launch_error", cudaStreamSynchronize(stream_));
    LaunchPlan plan{};
    AR_CUDA_CHECK(cudaMemcpy(&plan, plan_buffer_, sizeof plan, cudaMemcpyDeviceToHost));
    return plan;
  }

  std::vector<CUfunction> validate_plan(const CubinModule& m, const LaunchPlan& plan, int variant,
                                        const std::string& slot) {
    if (plan.status != 0)
      throw HarnessError("launch_error",
                         "the kernel declines this workload (plan status " + std::to_string(plan.status) + ")",
                         slot);
    if (plan.num_stages < 1 || plan.num_stages > kMaxLaunchStages)
      throw HarnessError("launch_error",
                         "ar_plan returned num_stages = " + std::to_string(plan.num_stages) + " (expected 1.." +
                             std::to_string(kMaxLaunchStages) + ")",
                         slot);
    if (plan.workspace_bytes > kMaxWorkspaceBytes)
      throw HarnessError("launch_error",
                         "ar_plan asks for a " + std::to_string(plan.workspace_bytes) +
                             "-byte workspace (more than " + std::to_string(kMaxWorkspaceBytes) + ")",
                         slot);
    std::vector<CUfunction> stages;
    for (int i = 0; i < plan.num_stages; ++i) {
      const LaunchStage& st = plan.stage[i];
      const std::string name = "stage " + std::to_string(i);
      CUfunction f = m.stage(i, variant);
      const unsigned long long threads =
          static_cast<unsigned long long>(st.block[0]) * st.block[1] * st.block[2];
      int max_threads = 0, static_smem = 0;
      AR_CU_CHECK(cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
      AR_CU_CHECK(cuFuncGetAttribute(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
      const bool grid_ok = st.grid[0] >= 1 && st.grid[0] <= 0x7fffffffu && st.grid[1] >= 1 &&
                           st.grid[1] <= static_cast<unsigned>(facts_.max_grid_y) && st.grid[2] >= 1 &&
                           st.grid[2] <= static_cast<unsigned>(facts_.max_grid_z);
      if (!grid_ok)
        throw HarnessError("launch_error", "ar_plan: " + name + " grid " + dims(st.grid) + " is out of range", slot);
      const bool block_ok = st.block[0] >= 1 && st.block[1] >= 1 && st.block[2] >= 1 && st.block[2] <= 64 &&
                            threads <= static_cast<unsigned long long>(max_threads);
      if (!block_ok)
        throw HarnessError("launch_error",
                           "ar_plan: " + name + " block " + dims(st.block) + " is out of range (this kernel allows " +
                               std::to_string(max_threads) + " threads per block)",
                           slot);
      if (static_cast<size_t>(st.shared_bytes) + static_cast<size_t>(static_smem) > facts_.smem_per_block_optin)
        throw HarnessError("launch_error",
                           "ar_plan: " + name + " asks for " + std::to_string(st.shared_bytes) +
                               " B of dynamic shared memory (+" + std::to_string(static_smem) +
                               " static); the device allows " + std::to_string(facts_.smem_per_block_optin),
                           slot);
      stages.push_back(f);
    }
    return stages;
  }

  // Each stage's cluster, checked: the size the plan's flags ask for, or the one its kernel was compiled
  // with (which the flags may repeat but not contradict), at most kMaxClusterSize blocks dividing the grid.
  std::vector<StageCluster> stage_clusters(const LaunchPlan& plan, const std::vector<CUfunction>& stages,
                                           const std::string& slot) const {
    std::vector<StageCluster> clusters(stages.size());
    for (size_t i = 0; i < stages.size(); ++i) {
      const LaunchStage& st = plan.stage[i];
      const std::string name = "stage " + std::to_string(i);
      StageCluster& c = clusters[i];
      const unsigned asked = honoured_cluster_size(st, static_cast<int>(i));
      int compiled[3] = {0, 0, 0}, must_be_set = 0;
      // Before sm_90 the attributes may not exist: no compiled cluster then.
      if (cuFuncGetAttribute(&compiled[0], CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, stages[i]) != CUDA_SUCCESS ||
          cuFuncGetAttribute(&compiled[1], CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, stages[i]) != CUDA_SUCCESS ||
          cuFuncGetAttribute(&compiled[2], CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, stages[i]) != CUDA_SUCCESS ||
          cuFuncGetAttribute(&must_be_set, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, stages[i]) != CUDA_SUCCESS)
        compiled[0] = compiled[1] = compiled[2] = must_be_set = 0;
      if (compiled[0] > 0) {
        for (int k = 0; k < 3; ++k) c.dims[k] = static_cast<unsigned>(std::max(compiled[k], 1));
        c.compiled = true;
        if (asked > 1 && (asked != c.dims[0] || c.dims[1] != 1 || c.dims[2] != 1))
          throw HarnessError("launch_error",
                             "ar_plan: " + name + " asks for clusters of " + std::to_string(asked) +
                                 " blocks, but its kernel is compiled with __cluster_dims__" + dims(c.dims),
                             slot);
      } else {
        c.dims[0] = asked;
        if (must_be_set && asked <= 1)
          throw HarnessError("launch_error",
                             "ar_plan: " + name + "'s kernel must be launched in clusters, and the plan's flags "
                                                  "give it none (ar::stage_cluster(n))",
                             slot);
      }
      if (c.size() <= 1) continue;
      if (facts_.cc_major < 9)
        throw HarnessError("launch_error", "ar_plan: " + name + " asks for clusters, which need sm_90 or later",
                           slot);
      if (c.size() > kMaxClusterSize || st.grid[0] % c.dims[0] != 0 || st.grid[1] % c.dims[1] != 0 ||
          st.grid[2] % c.dims[2] != 0)
        throw HarnessError("launch_error",
                           "ar_plan: " + name + " asks for clusters of " + dims(c.dims) + " blocks; one may hold at most " +
                               std::to_string(kMaxClusterSize) + " and its dimensions must divide the grid " +
                               dims(st.grid),
                           slot);
    }
    return clusters;
  }

  CUresult launch_stage(Binding& b, int stage, int rotation) {
    const LaunchStage& st = b.plan.stage[stage];
    void* args[] = {b.params[rotation].data()};
    const bool programmatic = (honoured_stage_flags(st, stage) & kStageProgrammatic) != 0u;
    const StageCluster& c = b.clusters[stage];
    const bool cluster = c.size() > 1 && !c.compiled;   // a compiled cluster needs no attribute
    if (!programmatic && !cluster)
      return cuLaunchKernel(b.stages[stage], st.grid[0], st.grid[1], st.grid[2], st.block[0], st.block[1],
                            st.block[2], st.shared_bytes, stream_, args, nullptr);
    // The same launch with its attributes (launch_plan.h): programmatic dependent launch, allowed to start
    // before the stage before it ends (a CUDA graph captures it as a programmatic edge), and clusters.
    CUlaunchAttribute attrs[2] = {};
    unsigned n = 0;
    if (programmatic) {
      attrs[n].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attrs[n++].value.programmaticStreamSerializationAllowed = 1;
    }
    if (cluster) {
      attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attrs[n].value.clusterDim.x = c.dims[0];
      attrs[n].value.clusterDim.y = c.dims[1];
      attrs[n++].value.clusterDim.z = c.dims[2];
    }
    CUlaunchConfig config = launch_config(st);
    config.attrs = attrs;
    config.numAttrs = n;
    return cuLaunchKernelEx(&config, b.stages[stage], args, nullptr);
  }

  CUlaunchConfig launch_config(const LaunchStage& st) const {
    CUlaunchConfig config{};
    config.gridDimX = st.grid[0];
    config.gridDimY = st.grid[1];
    config.gridDimZ = st.grid[2];
    config.blockDimX = st.block[0];
    config.blockDimY = st.block[1];
    config.blockDimZ = st.block[2];
    config.sharedMemBytes = st.shared_bytes;
    config.hStream = stream_;
    return config;
  }

  // A cluster stage: a size over 8 needs the non-portable attribute, and a cluster that cannot be
  // resident at all (its blocks' shared memory or registers do not fit on one GPC) is refused here, with
  // a message, rather than as a bare launch failure.
  void prepare_clusters(Binding& b, const std::string& slot) {
    for (int i = 0; i < b.plan.num_stages; ++i) {
      const StageCluster& c = b.clusters[i];
      const unsigned cluster = c.size();
      if (cluster <= 1) continue;
      if (cluster > 8)
        AR_CU("launch_error",
              cuFuncSetAttribute(b.stages[i], CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1));
      CUlaunchAttribute attr{};
      attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attr.value.clusterDim.x = c.dims[0];
      attr.value.clusterDim.y = c.dims[1];
      attr.value.clusterDim.z = c.dims[2];
      CUlaunchConfig config = launch_config(b.plan.stage[i]);
      config.attrs = &attr;
      config.numAttrs = c.compiled ? 0 : 1;   // a compiled cluster's size comes from the kernel
      int resident = 0;
      const CUresult e = cuOccupancyMaxActiveClusters(&resident, b.stages[i], &config);
      if (e != CUDA_SUCCESS || resident < 1)
        throw HarnessError("launch_error",
                           "ar_plan: stage " + std::to_string(i) + ": no cluster of " + std::to_string(cluster) +
                               " blocks of " + std::to_string(b.plan.stage[i].shared_bytes) +
                               " B of shared memory can be resident" +
                               (e != CUDA_SUCCESS ? " (" + describe(e, "cuOccupancyMaxActiveClusters", __FILE__,
                                                                    __LINE__) + ")"
                                                  : std::string()),
                           slot);
    }
  }

  void launch(Binding& b, int stage, int rotation) { AR_CU("launch_error", launch_stage(b, stage, rotation)); }

  // The rotation's params blob as the problem holds it now, with the slot's
  // workspace pointer patched in.
  std::vector<unsigned char> current_params(const Binding& b, int rotation, const std::string& slot) {
    size_t size = 0;
    const auto* p = static_cast<const unsigned char*>(b.problem->params(rotation, &size));
    if (!b.params.empty() && !b.params[0].empty() && size != b.params[0].size())
      throw HarnessError("problem_error", "params size differs between rotations", slot);
    std::vector<unsigned char> blob(p, p + size);
    if (b.workspace_offset >= 0) std::memcpy(blob.data() + b.workspace_offset, &b.workspace, sizeof(void*));
    return blob;
  }

  // A problem may draw scalars of its params per seed (a scale, an alpha) in
  // randomize(), after bind() captured the graphs: a launch must see the
  // params as they are now, never the ones of an earlier draw. Shapes are
  // fixed by prepare(), so the plan stays; only the graph is captured again.
  void refresh_params(Binding& b, int rotation, const std::string& slot) {
    std::vector<unsigned char> now = current_params(b, rotation, slot);
    if (now == b.params[rotation]) return;
    // The new params, maps and graph take effect together: if encoding or capture throws, the binding
    // keeps the old three, and the next call tries again instead of finding the params current.
    auto maps = encode_tensor_maps(b.plan, now, b.workspace, slot);
    std::swap(b.params[rotation], now);   // capture launches with the binding's params
    cudaGraphExec_t fresh = nullptr;
    try {
      fresh = capture(b, rotation, slot);
    } catch (...) {
      std::swap(b.params[rotation], now);
      throw;
    }
    b.maps[rotation] = std::move(maps);
    AR_CUDA_WARN(cudaGraphExecDestroy(b.graphs[rotation]));
    b.graphs[rotation] = fresh;
  }

  // The whole allocation, on the launch's stream: ordered before the launch,
  // and before the start event of a timed sample. The rotation's tensor maps
  // go back in after it.
  void repoison_workspace(Binding& b, int rotation) {
    if (!b.workspace) return;
    AR_CUDA_CHECK(cudaMemsetAsync(b.workspace, 0xFF, b.workspace_alloc, stream_));
    write_tensor_maps(b.maps[rotation], b.workspace, stream_);
  }

  // Stream capture of the plan's launches; any failure rejects the candidate
  // (it is never timed eagerly instead).
  cudaGraphExec_t capture(Binding& b, int rotation, const std::string& slot) {
    AR_CUDA("capture_error", cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    CUresult launched = CUDA_SUCCESS;
    int failed_stage = -1;
    for (int i = 0; i < b.plan.num_stages && launched == CUDA_SUCCESS; ++i) {
      launched = launch_stage(b, i, rotation);
      if (launched != CUDA_SUCCESS) failed_stage = i;
    }
    // The timing pad goes after the stages, inside the graph and so inside the
    // timed region. A failure here is the harness's, not the candidate's.
    cudaError_t padded = cudaSuccess;
    if (launched == CUDA_SUCCESS && b.pad_cycles >= 0) padded = launch_pad_spin(b.pad_cycles, stream_);
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);   // always: restores the stream
    auto refuse = [&](const std::string& why) {
      if (graph) AR_CUDA_WARN(cudaGraphDestroy(graph));
      throw HarnessError("capture_error", "the kernel cannot be captured in a CUDA graph: " + why, slot);
    };
    if (launched != CUDA_SUCCESS) {
      if (is_sticky(launched)) throw_cuda_error(launched, "fault", "cuLaunchKernel(Ex)", __FILE__, __LINE__);
      refuse("stage " + std::to_string(failed_stage) + ": " +
             describe(launched, "cuLaunchKernel(Ex)", __FILE__, __LINE__));
    }
    if (padded != cudaSuccess) {
      if (graph) AR_CUDA_WARN(cudaGraphDestroy(graph));
      if (is_sticky(padded)) throw_cuda_error(padded, "fault", "launch_pad_spin", __FILE__, __LINE__);
      (void)cudaGetLastError();
      throw HarnessError("launch_error",
                         "the bench's timing pad could not be captured: " +
                             describe(padded, "launch_pad_spin", __FILE__, __LINE__),
                         slot);
    }
    if (ended != cudaSuccess) {
      if (is_sticky(ended)) throw_cuda_error(ended, "fault", "cudaStreamEndCapture", __FILE__, __LINE__);
      (void)cudaGetLastError();
      refuse(describe(ended, "cudaStreamEndCapture", __FILE__, __LINE__));
    }
    cudaGraphExec_t exec = nullptr;
    const cudaError_t inst = cudaGraphInstantiate(&exec, graph, 0);
    if (inst != cudaSuccess) {
      (void)cudaGetLastError();
      refuse(describe(inst, "cudaGraphInstantiate", __FILE__, __LINE__));
    }
    AR_CUDA_CHECK(cudaGraphDestroy(graph));
    AR_CUDA("capture_error", cudaGraphUpload(exec, stream_));
    return exec;
  }

  // The clock the pad's cycle count assumes: NVML's default (else max) SM
  // clock, which the bench keeps samples near (rounds under 75% are dropped),
  // else the CUDA attribute's peak clock.
  double pad_clock_mhz() {
    const double mhz = nvml_.default_sm_clock_mhz();
    return mhz > 0 ? mhz : facts_.peak_sm_mhz;
  }

  size_t flush_bytes() const { return std::max(kMinFlushBytes, 2 * facts_.l2_bytes); }

  // Writes a buffer of >= 2x the L2 on the stream, outside the timed region,
  // so the next sample starts with none of its data cached.
  void flush_l2() {
    if (!flush_) AR_CUDA_CHECK(cudaMalloc(&flush_, flush_bytes()));
    flush_value_ = (flush_value_ + 1) & 0xFF;
    AR_CUDA_CHECK(cudaMemsetAsync(flush_, flush_value_, flush_bytes(), stream_));
  }

  int gpu_;
  DeviceFacts facts_;
  NvmlGpu nvml_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  void* plan_buffer_ = nullptr;
  void* flush_ = nullptr;
  int flush_value_ = 0;
  nlohmann::json info_;
  StateHasher hasher_;
  std::map<std::string, Slot> slots_;
};

}  // namespace

std::unique_ptr<Device> make_device(int gpu_index) {
  // Load every kernel of a cubin at cuModuleLoad: errors surface at "load", and
  // no first-launch loading lands in a warm-up or a sample.
  setenv("CUDA_MODULE_LOADING", "EAGER", 1);
  int count = 0;
  AR_CUDA_CHECK(cudaGetDeviceCount(&count));
  if (gpu_index < 0 || gpu_index >= count)
    throw HarnessError("bad_request", "--gpu " + std::to_string(gpu_index) + ": this machine has " +
                                          std::to_string(count) + " CUDA device(s)");
  AR_CUDA_CHECK(cudaSetDevice(gpu_index));
  AR_CUDA_CHECK(cudaFree(nullptr));   // creates the primary context the driver-API calls use
  return std::make_unique<CudaDevice>(gpu_index);
}

}  // namespace ar::harness
