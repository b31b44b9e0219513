// The float64 oracle: sparse MLA for a few (b, i, h) rows on the host, from
// the exact stored bits (bf16, e4m3 x power-of-two scale), with a two-pass
// softmax. It checks the candidate and the GPU reference alike.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

#include "problem_parts.h"

namespace sparse_mla {

namespace {

double e4m3_to_double(unsigned char v) {
  const int e = (v >> 3) & 15, m = v & 7;
  if (e == 15 && m == 7) return std::numeric_limits<double>::quiet_NaN();
  const double mag = e == 0 ? std::ldexp(m, -9) : std::ldexp(8 + m, e - 10);
  return (v & 0x80) ? -mag : mag;
}

// Row t of the gathered records as 576 doubles.
void decode_record(const unsigned char* rec, bool fp8, double* k) {
  if (!fp8) {
    for (int d = 0; d < 576; ++d) {
      uint16_t bits;
      std::memcpy(&bits, rec + 2 * d, 2);
      k[d] = bf16_to_double(bits);
    }
    return;
  }
  float scales[4];
  std::memcpy(scales, rec + 512, sizeof scales);
  for (int d = 0; d < 512; ++d) k[d] = e4m3_to_double(rec[d]) * static_cast<double>(scales[d / 128]);
  for (int d = 0; d < 64; ++d) {
    uint16_t bits;
    std::memcpy(&bits, rec + 528 + 2 * d, 2);
    k[512 + d] = bf16_to_double(bits);
  }
}

}  // namespace

double bf16_to_double(uint16_t bits) {
  const uint32_t w = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &w, sizeof f);
  return static_cast<double>(f);
}

namespace {

// Runs body(0) .. body(n - 1), each on its own thread: the rows and heads are
// independent, and the oracle is most of a check's time on one core.
template <class Body>
void on_threads(size_t n, Body body) {
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (size_t k = 0; k < n; ++k) threads.emplace_back(body, k);
  for (auto& t : threads) t.join();
}

}  // namespace

void oracle_row(const OracleRow& row, const Shape& s, std::vector<double>* out, std::vector<double>* lse,
                std::vector<double>* logit_scale) {
  const size_t nh = row.heads.size();
  out->assign(nh * 512, 0.0);
  lse->assign(nh, std::numeric_limits<double>::infinity());
  if (logit_scale) logit_scale->assign(nh, 0.0);

  // The valid positions and their decoded rows, shared by every head.
  std::vector<int> valid;
  for (int t = 0; t < row.n_eff && t < s.topk; ++t)
    if (row.indices[t] >= 0 && row.indices[t] < s.num_slots) valid.push_back(t);
  if (valid.empty()) return;
  std::vector<double> keys(valid.size() * 576);
  constexpr size_t kDecoders = 4;
  on_threads(kDecoders, [&](size_t part) {
    for (size_t v = part; v < valid.size(); v += kDecoders)
      decode_record(row.records.data() + static_cast<size_t>(valid[v]) * s.record_bytes(), s.fp8, &keys[v * 576]);
  });

  on_threads(nh, [&](size_t hi) {
    std::vector<double> q(576), score(valid.size());
    for (int d = 0; d < 576; ++d) q[d] = bf16_to_double(row.q[hi * 576 + d]);
    double m = -std::numeric_limits<double>::infinity();
    double magnitude = 0;
    for (size_t v = 0; v < valid.size(); ++v) {
      double dot = 0, size = 0;
      const double* k = &keys[v * 576];
      for (int d = 0; d < 576; ++d) {
        dot += q[d] * k[d];
        size += std::fabs(q[d] * k[d]);
      }
      score[v] = static_cast<double>(s.scale) * dot;
      m = std::max(m, score[v]);
      magnitude = std::max(magnitude, static_cast<double>(s.scale) * size);
    }
    if (logit_scale) (*logit_scale)[hi] = magnitude;
    double sum = 0;
    for (double x : score) sum += std::exp(x - m);
    const double l = m + std::log(sum);
    (*lse)[hi] = l;
    double* o = &(*out)[hi * 512];
    for (size_t v = 0; v < valid.size(); ++v) {
      const double p = std::exp(score[v] - l);
      const double* k = &keys[v * 576];
      for (int d = 0; d < 512; ++d) o[d] += p * k[d];
    }
  });
}

void oracle_each_row(const std::vector<OracleRow>& rows, const Shape& s, std::vector<OracleResult>* results) {
  results->assign(rows.size(), OracleResult{});
  on_threads(rows.size(), [&](size_t k) {
    OracleResult& r = (*results)[k];
    oracle_row(rows[k], s, &r.out, &r.lse, &r.logit_scale);
  });
}

}  // namespace sparse_mla
