// Gaussian process regression (gaussian_process.h), after Rasmussen and
// Williams, "Gaussian Processes for Machine Learning", algorithm 2.1.
#include "autoresearch/agents/gaussian_process.h"

#include <algorithm>
#include <cmath>

namespace ar {

namespace {

constexpr double kSqrt5 = 2.23606797749979;
constexpr double kLog2Pi = 1.8378770664093453;

// Shared length scales tried first, in the [0, 1] units of the inputs: from
// "only the nearest neighbours are alike" to "the whole list acts alike".
constexpr double kLengthGrid[] = {0.12, 0.2, 0.35, 0.6, 1.0, 1.8};
// Noise, as a share of the standardised outputs' variance: a screen's median
// repeats within a fraction of a percent, a configuration near a cliff less so.
constexpr double kNoiseGrid[] = {1e-4, 1e-2, 0.1};
// The per-dimension pass: a tunable that matters less gets a longer scale.
constexpr double kDimensionScalings[] = {0.5, 2.0, 5.0};

// Lower Cholesky factor in place; false when not positive definite.
bool cholesky(std::vector<std::vector<double>>& a) {
  const size_t n = a.size();
  for (size_t j = 0; j < n; ++j) {
    double d = a[j][j];
    for (size_t k = 0; k < j; ++k) d -= a[j][k] * a[j][k];
    if (!(d > 0)) return false;
    d = std::sqrt(d);
    a[j][j] = d;
    for (size_t i = j + 1; i < n; ++i) {
      double s = a[i][j];
      for (size_t k = 0; k < j; ++k) s -= a[i][k] * a[j][k];
      a[i][j] = s / d;
    }
    for (size_t k = j + 1; k < n; ++k) a[j][k] = 0;
  }
  return true;
}

// Solves L z = b (forward substitution).
std::vector<double> solve_lower(const std::vector<std::vector<double>>& l, const std::vector<double>& b) {
  std::vector<double> z(b.size());
  for (size_t i = 0; i < b.size(); ++i) {
    double s = b[i];
    for (size_t k = 0; k < i; ++k) s -= l[i][k] * z[k];
    z[i] = s / l[i][i];
  }
  return z;
}

// Solves L^T z = b (back substitution).
std::vector<double> solve_upper_transposed(const std::vector<std::vector<double>>& l, const std::vector<double>& b) {
  const size_t n = b.size();
  std::vector<double> z(n);
  for (size_t i = n; i-- > 0;) {
    double s = b[i];
    for (size_t k = i + 1; k < n; ++k) s -= l[k][i] * z[k];
    z[i] = s / l[i][i];
  }
  return z;
}

double log_likelihood_of(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
                         const GpHyperparameters& h) {
  auto gp = GaussianProcess::fit(x, y, h);
  return gp ? gp->log_marginal_likelihood() : -INFINITY;
}

}  // namespace

double GaussianProcess::kernel(const std::vector<double>& a, const std::vector<double>& b) const {
  double r2 = 0;
  for (size_t d = 0; d < a.size(); ++d) {
    const double t = (a[d] - b[d]) / h_.length_scales[d];
    r2 += t * t;
  }
  const double r = std::sqrt(r2);
  return h_.signal_variance * (1 + kSqrt5 * r + 5.0 / 3.0 * r2) * std::exp(-kSqrt5 * r);
}

std::optional<GaussianProcess> GaussianProcess::fit(const std::vector<std::vector<double>>& x,
                                                    const std::vector<double>& y, const GpHyperparameters& h) {
  GaussianProcess gp;
  gp.x_ = x;
  gp.h_ = h;
  const size_t n = y.size();
  if (n == 0 || x.size() != n) return std::nullopt;
  double sum = 0;
  for (double v : y) sum += v;
  gp.y_mean_ = sum / static_cast<double>(n);
  double ss = 0;
  for (double v : y) ss += (v - gp.y_mean_) * (v - gp.y_mean_);
  gp.y_scale_ = n > 1 && ss > 0 ? std::sqrt(ss / static_cast<double>(n)) : 1;
  std::vector<double> z(n);
  for (size_t i = 0; i < n; ++i) z[i] = (y[i] - gp.y_mean_) / gp.y_scale_;

  for (double jitter : {0.0, 1e-8, 1e-6, 1e-4}) {
    std::vector<std::vector<double>> k(n, std::vector<double>(n));
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j <= i; ++j) k[i][j] = k[j][i] = gp.kernel(x[i], x[j]);
    for (size_t i = 0; i < n; ++i) k[i][i] += h.noise_variance + jitter;
    if (!cholesky(k)) continue;
    gp.chol_ = std::move(k);
    gp.alpha_ = solve_upper_transposed(gp.chol_, solve_lower(gp.chol_, z));
    double fit = 0, log_det = 0;
    for (size_t i = 0; i < n; ++i) {
      fit += z[i] * gp.alpha_[i];
      log_det += std::log(gp.chol_[i][i]);
    }
    gp.lml_ = -0.5 * fit - log_det - 0.5 * static_cast<double>(n) * kLog2Pi;
    return gp;
  }
  return std::nullopt;
}

GpPrediction GaussianProcess::predict(const std::vector<double>& at) const {
  std::vector<double> ks(x_.size());
  for (size_t i = 0; i < x_.size(); ++i) ks[i] = kernel(at, x_[i]);
  double mean = 0;
  for (size_t i = 0; i < ks.size(); ++i) mean += ks[i] * alpha_[i];
  const std::vector<double> v = solve_lower(chol_, ks);
  double explained = 0;
  for (double e : v) explained += e * e;
  GpPrediction p;
  p.mean = y_mean_ + y_scale_ * mean;
  p.variance = y_scale_ * y_scale_ * std::max(0.0, h_.signal_variance - explained);
  return p;
}

GpHyperparameters select_hyperparameters(const std::vector<std::vector<double>>& x, const std::vector<double>& y) {
  const size_t dims = x.empty() ? 0 : x.front().size();
  GpHyperparameters best;
  best.length_scales.assign(dims, kLengthGrid[2]);
  double best_lml = -INFINITY;
  for (double length : kLengthGrid)
    for (double noise : kNoiseGrid) {
      GpHyperparameters h;
      h.length_scales.assign(dims, length);
      h.noise_variance = noise;
      const double lml = log_likelihood_of(x, y, h);
      if (lml > best_lml) {
        best_lml = lml;
        best = h;
      }
    }
  // One coordinate pass: each dimension's scale stretched or shrunk while the
  // likelihood improves (relevance per tunable, once there is data for it).
  for (size_t d = 0; d < dims; ++d) {
    const double base = best.length_scales[d];
    for (double factor : kDimensionScalings) {
      GpHyperparameters h = best;
      h.length_scales[d] = base * factor;
      const double lml = log_likelihood_of(x, y, h);
      if (lml > best_lml) {
        best_lml = lml;
        best = h;
      }
    }
  }
  return best;
}

double expected_improvement(const GpPrediction& p, double best, double xi) {
  const double sigma = std::sqrt(p.variance);
  const double gain = best - p.mean - xi;
  if (!(sigma > 1e-12)) return std::max(0.0, gain);
  const double z = gain / sigma;
  const double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
  const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
  return gain * cdf + sigma * pdf;
}

}  // namespace ar
