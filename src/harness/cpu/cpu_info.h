#pragma once
// What the CPU device reports about the host, and the measured peaks the
// driver uses as the physical floor (a time below bytes/peak_bandwidth or
// flops/peak_flops is a measurement fault).
#include <cstddef>
#include <string>

namespace ar::harness {

std::string cpu_model_name();     // /proc/cpuinfo "model name", or "unknown CPU"
int cpu_core_count();             // online logical CPUs
size_t last_level_cache_bytes();  // sysconf, then /sys; 32 MiB when neither says

// Quick measurements (together well under 0.3 s).
double measure_copy_bytes_per_s();    // memcpy on one core, bytes read + written
double measure_peak_flops_one_core(); // fp32 FMA throughput of one core

}  // namespace ar::harness
