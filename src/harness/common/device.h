#pragma once
// The harness's view of where kernels run. The CPU device dlopen()s a shared
// object; the CUDA device loads a cubin and replays CUDA graphs. The protocol
// loop and the verify/bench procedures (harness_core) only talk to this.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autoresearch/harness/problem.h"

namespace ar::harness {

// kind: "bad_request", "load_error", "launch_error", "capture_error", "fault",
// "problem_error". A fault is sticky (a CUDA context error): the harness replies,
// then exits so the driver restarts it.
struct HarnessError : std::runtime_error {
  HarnessError(std::string kind, const std::string& message, std::string slot = "")
      : std::runtime_error(message), kind(std::move(kind)), slot(std::move(slot)) {}
  std::string kind;
  std::string slot;
};

// A structural guard caught the kernel (PROTOCOL.md "guard"): the reply is
// {"ok":false,"kind":"guard","rule":rule,"error":...} plus `details`. Rules:
// "timed-replay" (a timed replay differs from the verified output), "state"
// (a module variable changed between launches), "verdict" (the reference's
// buffers changed under the kernel), "inputs" (inputs changed during a bench).
struct GuardError : HarnessError {
  GuardError(std::string rule, const std::string& message, std::string slot = "",
             nlohmann::json details = nlohmann::json::object())
      : HarnessError("guard", message, std::move(slot)), rule(std::move(rule)), details(std::move(details)) {}
  std::string rule;
  nlohmann::json details;   // e.g. {"round": 37, "rotation": 2}
};

// One variable of a loaded module that lives across launches (CUDA: a
// __device__ or __constant__ variable of the cubin, found in its ELF symbol
// table), with a hash of its current bytes.
struct ModuleVariable {
  std::string name;      // as the symbol table spells it
  std::string section;   // ".nv.global", ".nv.global.init", ".nv.constant3", ...
  size_t bytes = 0;
  std::string hash;
};

// bind()'s pad_us when the slot carries no timing pad.
inline constexpr double kNoPad = -1;

class Device {
 public:
  virtual ~Device() = default;

  // For "hello": name, kind ("cpu"/"cuda"), cache_bytes, and where known
  // sm_count, driver, default_sm_mhz, max_sm_mhz, memory_bytes, peak_bytes_per_s
  // (measured), peak_flops (measured, CPU only), cc ("9.0").
  virtual nlohmann::json info() = 0;
  virtual size_t cache_bytes() = 0;

  // Loads an artifact (.so / .cubin) into a named slot, replacing what was there.
  virtual void load(const std::string& slot, const std::string& artifact) = 0;
  virtual bool loaded(const std::string& slot) const = 0;

  // Binds the slot to the problem's current workload: CUDA runs ar_plan, sizes
  // and allocates the workspace, and captures one graph per rotation (a failed
  // capture throws HarnessError("capture_error")). Called after prepare().
  //
  // pad_us (a benchmarking aid, the bench request's "pad"): kNoPad, or that many
  // microseconds of extra busy device time inside every timed sample of this
  // slot (time_once only; run() never pads, so verification and the replay
  // check's correctness are untouched). CUDA appends a one-thread spin kernel to
  // the captured graph after the stages; the CPU busy-waits inside the timed
  // region. A pad of 0 still adds the padding's fixed cost (the CUDA graph's
  // extra kernel node), so bench gives the unpadded slots of a padded request
  // pad 0 and the slots differ by the spin alone.
  virtual void bind(const std::string& slot, Problem& problem, int rotations, double pad_us) = 0;
  // Drops what bind() made (before the problem's buffers are released).
  virtual void unbind_all() = 0;
  // How the bound slot launches (PROTOCOL.md "launch"): CUDA, the dispatch variant and each stage's block
  // and dynamic shared memory, what separates one code path of a kernel from another; null where a
  // device has a single way to run a kernel (the CPU).
  virtual nlohmann::json launch_signature(const std::string& slot) {
    (void)slot;
    return nullptr;
  }
  // How many of each stage's blocks the device holds at once, and so in how many waves the stage runs
  // (PROTOCOL.md "launch"): what a launch in clusters costs where a cluster's blocks must share one GPC.
  // Not part of the signature: the same code path may fill the device differently. Null on the CPU.
  virtual nlohmann::json launch_occupancy(const std::string& slot) {
    (void)slot;
    return nullptr;
  }

  // Runs the slot's kernel once on a rotation, eagerly, and waits for it.
  // CUDA re-poisons the slot's workspace (0xFF) before the launch.
  virtual void run(const std::string& slot, int rotation) = 0;
  // One timed sample of the bound slot on a rotation (graph replay on CUDA);
  // flushes the caches first when `cold`. Returns microseconds. CUDA
  // re-poisons the workspace before the sample, outside the timed region.
  virtual double time_once(const std::string& slot, int rotation, bool cold) = 0;

  // The slot's module-level state, each variable with a hash of its current
  // bytes (the harness compares it with the state right after load: a kernel
  // must leave it as loaded). Called between launches only. The default, for
  // a backend that cannot inspect its modules yet (the CPU), is "nothing to
  // watch"; throws HarnessError("bad_request") for an unknown slot otherwise.
  virtual std::vector<ModuleVariable> module_state(const std::string& /*slot*/) { return {}; }

  // SM clock now and its default (application/base) clock; < 0 when unknown.
  virtual double sm_clock_mhz() = 0;
  virtual double default_sm_clock_mhz() = 0;
  virtual double temperature_c() = 0;
  virtual void synchronize() = 0;
};

// Defined by the backend (cpu/cpu_device.cpp or cuda/cuda_device.cu).
std::unique_ptr<Device> make_device(int gpu_index);

}  // namespace ar::harness
