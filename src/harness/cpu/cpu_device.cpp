// The CPU backend of the harness: a candidate is a shared object exporting
// extern "C" void ar_kernel(const void* params), called on the problem's params.
// The CPU has no clock or temperature the harness can read cheaply, so those
// report -1 (unknown) and no round is ever dropped for a low clock.
//
// Every call, checked or timed, goes through CallGuard (cpu/call_guard.h):
// the kernel must leave no thread, child process, changed static data,
// floating-point mode or params write behind. The checks run outside the timed
// region.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "common/device.h"
#include "cpu/call_guard.h"
#include "cpu/cpu_info.h"
#include "cpu/kernel_library.h"

namespace ar::harness {

namespace {

// A cold sample starts after a pass over 2x the last-level cache, capped: a VM
// reports the whole host's L3 (hundreds of MiB here), and a flush that takes
// longer than the kernel would starve the sampling budget. 64 MiB evicts L1,
// L2 and far more L3 than a CPU demo's working set.
constexpr size_t kMaxFlushBytes = size_t{64} << 20;
constexpr size_t kLineBytes = 64;

class CacheFlusher {
 public:
  explicit CacheFlusher(size_t bytes) : words_(bytes / sizeof(uint64_t)) {}

  void flush() {
    if (buffer_.empty()) buffer_.assign(words_, 1);
    uint64_t sum = 0;
    // Read and write one word per line: every line is pulled in and dirtied,
    // pushing the kernel's data out of every level.
    for (size_t i = 0; i < buffer_.size(); i += kLineBytes / sizeof(uint64_t)) {
      sum += buffer_[i];
      buffer_[i] = sum;
    }
    sink_ = sum;
  }

 private:
  size_t words_;
  std::vector<uint64_t> buffer_;
  volatile uint64_t sink_ = 0;
};

// Spins (never sleeps: a sleeping thread lets the core's clock drop and wakes
// late) until `us` microseconds have passed.
void busy_wait_us(double us) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(us);
  while (std::chrono::steady_clock::now() < end) {
  }
}

class CpuDevice final : public Device {
 public:
  CpuDevice()
      : cache_bytes_(last_level_cache_bytes()),
        flusher_(std::min(2 * cache_bytes_, kMaxFlushBytes)) {}

  nlohmann::json info() override {
    if (info_.is_null()) {
      info_ = {{"name", cpu_model_name()},
               {"kind", "cpu"},
               {"cores", cpu_core_count()},
               {"cache_bytes", cache_bytes_},
               {"flush_bytes", std::min(2 * cache_bytes_, kMaxFlushBytes)},
               {"peak_bytes_per_s", measure_copy_bytes_per_s()},
               {"peak_flops", measure_peak_flops_one_core()},
               {"peak_scope", "one core"},
               {"default_sm_mhz", -1},
               {"max_sm_mhz", -1},
               {"temperature_c", -1}};
    }
    return info_;
  }

  size_t cache_bytes() override { return cache_bytes_; }

  void load(const std::string& slot, const std::string& artifact) override {
    // A failed load leaves the slot empty, never holding the previous kernel,
    // so a broken candidate cannot be timed as its predecessor.
    bound_.erase(slot);
    slots_.erase(slot);
    slots_[slot] = std::make_unique<KernelLibrary>(artifact, slot);
  }

  bool loaded(const std::string& slot) const override { return slots_.count(slot) > 0; }

  void bind(const std::string& slot, Problem& problem, int /*rotations*/, double pad_us) override {
    guard_.check_loaded(library(slot), slot);
    if (problem_ && problem_ != &problem) bound_.clear();
    problem_ = &problem;
    bound_[slot] = pad_us;
  }

  void unbind_all() override {
    bound_.clear();
    problem_ = nullptr;
  }

  void run(const std::string& slot, int rotation) override {
    const KernelLibrary& lib = bound_library(slot);
    size_t size = 0;
    const void* params = problem_->params(rotation, &size);
    const ProcessSnapshot before = guard_.before(params, size);
    lib.kernel()(params);
    guard_.after(before, lib, params, slot);
  }

  double time_once(const std::string& slot, int rotation, bool cold) override {
    const KernelLibrary& lib = bound_library(slot);
    KernelFn fn = lib.kernel();
    size_t size = 0;
    const void* params = problem_->params(rotation, &size);
    const double pad_us = bound_.at(slot);
    if (cold) flusher_.flush();
    const ProcessSnapshot before = guard_.before(params, size);
    const auto t0 = std::chrono::steady_clock::now();
    fn(params);
    if (pad_us > 0) busy_wait_us(pad_us);   // inside the timed region: a planted delay
    const auto t1 = std::chrono::steady_clock::now();
    guard_.after(before, lib, params, slot);
    return std::chrono::duration<double, std::micro>(t1 - t0).count();
  }

  // The object's writable pages, for the harness core's state watch (after
  // every request); CallGuard compares the same pages after every call.
  std::vector<ModuleVariable> module_state(const std::string& slot) override { return library(slot).writable_state(); }

  double sm_clock_mhz() override { return -1; }
  double default_sm_clock_mhz() override { return -1; }
  double temperature_c() override { return -1; }
  void synchronize() override {}

 private:
  const KernelLibrary& library(const std::string& slot) const {
    auto it = slots_.find(slot);
    if (it == slots_.end()) throw HarnessError("bad_request", "slot '" + slot + "' is not loaded", slot);
    return *it->second;
  }

  const KernelLibrary& bound_library(const std::string& slot) const {
    const KernelLibrary& lib = library(slot);
    if (!problem_ || !bound_.count(slot))
      throw HarnessError("bad_request", "slot '" + slot + "' is not bound to a workload", slot);
    return lib;
  }

  size_t cache_bytes_;
  CacheFlusher flusher_;
  CallGuard guard_;
  nlohmann::json info_;
  std::map<std::string, std::unique_ptr<KernelLibrary>> slots_;
  std::map<std::string, double> bound_;   // slot -> its timing pad (kNoPad: none)
  Problem* problem_ = nullptr;
};

}  // namespace

std::unique_ptr<Device> make_device(int /*gpu_index*/) { return std::make_unique<CpuDevice>(); }

}  // namespace ar::harness
