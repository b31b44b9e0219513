#include "cuda/nvml.h"

#include <dlfcn.h>

namespace ar::harness {

namespace {

// The NVML ABI pieces used here, declared by hand (values from nvml.h).
using nvmlReturn_t = int;
using nvmlDevice_t = void*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;            // NVML_CLOCK_SM
constexpr int kNvmlTemperatureGpu = 0;     // NVML_TEMPERATURE_GPU

struct NvmlApi {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*by_index)(unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*by_pci)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*default_app_clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*max_clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*driver_version)(char*, unsigned) = nullptr;
  bool ready = false;
};

template <typename F>
void bind(void* lib, const char* name, F* fn) {
  *fn = reinterpret_cast<F>(dlsym(lib, name));
}

const NvmlApi& api() {
  static const NvmlApi loaded = [] {
    NvmlApi a;
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return a;   // no NVML here: clocks and temperature unknown
    bind(lib, "nvmlInit_v2", &a.init);
    bind(lib, "nvmlDeviceGetHandleByIndex_v2", &a.by_index);
    bind(lib, "nvmlDeviceGetHandleByPciBusId_v2", &a.by_pci);
    bind(lib, "nvmlDeviceGetClockInfo", &a.clock);
    bind(lib, "nvmlDeviceGetDefaultApplicationsClock", &a.default_app_clock);
    bind(lib, "nvmlDeviceGetMaxClockInfo", &a.max_clock);
    bind(lib, "nvmlDeviceGetTemperature", &a.temperature);
    bind(lib, "nvmlSystemGetDriverVersion", &a.driver_version);
    a.ready = a.init && a.init() == kNvmlSuccess;
    return a;
  }();
  return loaded;
}

double reading(nvmlReturn_t (*fn)(nvmlDevice_t, int, unsigned*), void* device, int which) {
  unsigned value = 0;
  if (!fn || !device || fn(device, which, &value) != kNvmlSuccess) return -1;
  return static_cast<double>(value);
}

}  // namespace

NvmlGpu::NvmlGpu(const std::string& pci_bus_id, int index) {
  const NvmlApi& a = api();
  if (!a.ready) return;
  nvmlDevice_t d = nullptr;
  // CUDA and NVML may number the GPUs differently (CUDA_VISIBLE_DEVICES, ordering): the bus id is exact.
  if (a.by_pci && !pci_bus_id.empty() && a.by_pci(pci_bus_id.c_str(), &d) == kNvmlSuccess) {
    device_ = d;
  } else if (a.by_index && a.by_index(static_cast<unsigned>(index), &d) == kNvmlSuccess) {
    device_ = d;
  }
}

double NvmlGpu::sm_clock_mhz() const { return reading(api().clock, device_, kNvmlClockSm); }

double NvmlGpu::max_sm_clock_mhz() const { return reading(api().max_clock, device_, kNvmlClockSm); }

double NvmlGpu::default_sm_clock_mhz() const {
  const double d = reading(api().default_app_clock, device_, kNvmlClockSm);
  return d > 0 ? d : max_sm_clock_mhz();
}

double NvmlGpu::temperature_c() const {
  return reading(api().temperature, device_, kNvmlTemperatureGpu);
}

std::string NvmlGpu::driver_version() const {
  char text[96] = {0};
  const NvmlApi& a = api();
  if (!a.ready || !a.driver_version || a.driver_version(text, sizeof text) != kNvmlSuccess) return "";
  return text;
}

}  // namespace ar::harness
