#pragma once
// The few NVML readings the harness needs (SM clock, its default, temperature,
// driver version), loaded with dlopen so the harness builds without nvml.h and
// runs where libnvidia-ml is missing: every reading is then -1 ("unknown"),
// never an error.
#include <string>

namespace ar::harness {

class NvmlGpu {
 public:
  // Finds the GPU by PCI bus id ("0000:3B:00.0"), falling back to the index.
  NvmlGpu(const std::string& pci_bus_id, int index);

  bool available() const { return device_ != nullptr; }
  double sm_clock_mhz() const;            // now
  double default_sm_clock_mhz() const;    // default applications clock, else the max clock
  double max_sm_clock_mhz() const;
  double temperature_c() const;
  std::string driver_version() const;     // "580.159.03", or "" when unknown

 private:
  void* device_ = nullptr;                // nvmlDevice_t
};

}  // namespace ar::harness
