#include "cpu/cpu_info.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

namespace ar::harness {

namespace {

constexpr size_t kDefaultCacheBytes = size_t{32} << 20;
constexpr size_t kCopyBytes = size_t{64} << 20;   // past L2, so not an L1/L2 rate
constexpr int kCopyRepeats = 3;
constexpr long kFmaIterations = 1000000;  // ~3 ms per repeat at AVX-512 peak
constexpr int kFmaRepeats = 3;

double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// "48K", "2048K", "480M" -> bytes.
size_t parse_cache_size(const std::string& text) {
  char* end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str()) return 0;
  if (*end == 'K') v <<= 10;
  else if (*end == 'M') v <<= 20;
  else if (*end == 'G') v <<= 30;
  return static_cast<size_t>(v);
}

size_t sysfs_last_level_cache() {
  size_t best = 0;
  int best_level = 0;
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::ifstream level_file(dir + "level"), size_file(dir + "size"), type_file(dir + "type");
    int level = 0;
    std::string size, type;
    if (!(level_file >> level) || !(size_file >> size)) continue;
    type_file >> type;
    if (type == "Instruction") continue;
    if (level > best_level) {
      best_level = level;
      best = parse_cache_size(size);
    }
  }
  return best;
}

// Keeps a computed value alive without letting the compiler drop its loop.
volatile double g_sink = 0;
void consume(double x) { g_sink = g_sink + x; }

#if defined(__AVX512F__)
using Vec = __m512;
constexpr int kLanes = 16;
inline Vec splat(float x) { return _mm512_set1_ps(x); }
inline Vec vec_fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
inline float first_lane(Vec v) { return _mm512_cvtss_f32(v); }
#elif defined(__AVX2__) && defined(__FMA__)
using Vec = __m256;
constexpr int kLanes = 8;
inline Vec splat(float x) { return _mm256_set1_ps(x); }
inline Vec vec_fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
inline float first_lane(Vec v) { return _mm256_cvtss_f32(v); }
#else
using Vec = float;
constexpr int kLanes = 1;
inline Vec splat(float x) { return x; }
inline Vec vec_fma(Vec a, Vec b, Vec c) { return a * b + c; }
inline float first_lane(Vec v) { return v; }
#endif

// Independent FMA chains, written out by the fold so every accumulator lives
// in a register (a loop over an array would go through memory at -O2): this
// is the throughput bound of one core, not its latency bound.
template <int... I>
double fma_chains(std::integer_sequence<int, I...>) {
  constexpr int kChains = sizeof...(I);
  Vec acc[kChains] = {splat(static_cast<float>(I) * 1e-3f)...};
  const Vec x = splat(0.999999f), y = splat(1e-6f);
  const auto t0 = std::chrono::steady_clock::now();
  for (long it = 0; it < kFmaIterations; ++it) ((acc[I] = vec_fma(acc[I], x, y)), ...);
  const auto t1 = std::chrono::steady_clock::now();
  float check = 0;
  ((check += first_lane(acc[I])), ...);
  consume(check);
  const double s = seconds(t0, t1);
  return s > 0 ? 2.0 * kChains * kLanes * static_cast<double>(kFmaIterations) / s : 0;
}

}  // namespace

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    auto colon = line.find(':');
    if (colon == std::string::npos) break;
    auto first = line.find_first_not_of(" \t", colon + 1);
    return first == std::string::npos ? "unknown CPU" : line.substr(first);
  }
  return "unknown CPU";
}

int cpu_core_count() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n > 0) return static_cast<int>(n);
  unsigned h = std::thread::hardware_concurrency();
  return h > 0 ? static_cast<int>(h) : 1;
}

size_t last_level_cache_bytes() {
  long for_l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (for_l3 > 0) return static_cast<size_t>(for_l3);
  size_t from_sysfs = sysfs_last_level_cache();
  if (from_sysfs > 0) return from_sysfs;
  long for_l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return for_l2 > 0 ? std::max(static_cast<size_t>(for_l2), kDefaultCacheBytes) : kDefaultCacheBytes;
}

double measure_copy_bytes_per_s() {
  std::unique_ptr<char[]> src(new char[kCopyBytes]), dst(new char[kCopyBytes]);
  // Touch every page first: page faults are not bandwidth.
  std::memset(src.get(), 1, kCopyBytes);
  std::memset(dst.get(), 2, kCopyBytes);
  double best = 0;
  for (int r = 0; r < kCopyRepeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    std::memcpy(dst.get(), src.get(), kCopyBytes);
    auto t1 = std::chrono::steady_clock::now();
    consume(dst[static_cast<size_t>(r) * 4099 % kCopyBytes]);
    const double s = seconds(t0, t1);
    if (s > 0) best = std::max(best, 2.0 * static_cast<double>(kCopyBytes) / s);
  }
  return best;
}

double measure_peak_flops_one_core() {
  double best = 0;
  for (int r = 0; r < kFmaRepeats; ++r) best = std::max(best, fma_chains(std::make_integer_sequence<int, 16>()));
  return best;
}

}  // namespace ar::harness
