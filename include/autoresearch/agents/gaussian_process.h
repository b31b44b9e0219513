#pragma once
// A Gaussian process regression model for the tuner's Bayesian optimisation
// (strategy_bayes.cpp): a Matérn 5/2 kernel with one length scale per input
// (automatic relevance determination), a constant mean, Gaussian noise, exact
// inference by Cholesky. The inputs are the tunables' positions along their
// declared value lists, scaled to [0, 1]; the outputs are standardised
// log-times. Spaces of a few hundred judged points keep the O(n^3) fit cheap.
#include <cstddef>
#include <optional>
#include <vector>

namespace ar {

struct GpHyperparameters {
  std::vector<double> length_scales;   // one per input dimension, > 0
  double signal_variance = 1;          // of the standardised outputs
  double noise_variance = 1e-2;
};

struct GpPrediction {
  double mean = 0;      // in the units of the observations
  double variance = 0;  // of the latent function, without the noise
};

class GaussianProcess {
 public:
  // Fits to the observations; nullopt when the kernel matrix is not positive
  // definite even with jitter (which the noise floor should prevent).
  static std::optional<GaussianProcess> fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
                                            const GpHyperparameters& h);
  // The log marginal likelihood of the observations under the hyperparameters.
  double log_marginal_likelihood() const { return lml_; }
  GpPrediction predict(const std::vector<double>& at) const;
  const GpHyperparameters& hyperparameters() const { return h_; }

 private:
  double kernel(const std::vector<double>& a, const std::vector<double>& b) const;

  std::vector<std::vector<double>> x_;
  GpHyperparameters h_;
  double y_mean_ = 0, y_scale_ = 1;
  std::vector<double> alpha_;               // K^-1 (y - mean), standardised
  std::vector<std::vector<double>> chol_;   // lower Cholesky factor of K + noise
  double lml_ = 0;
};

// Chooses hyperparameters by the log marginal likelihood: a grid over one
// shared length scale and the noise, then one pass of per-dimension scalings.
GpHyperparameters select_hyperparameters(const std::vector<std::vector<double>>& x, const std::vector<double>& y);

// Expected improvement below `best` (minimisation) of a prediction, with a
// margin `xi` in the observations' units.
double expected_improvement(const GpPrediction& p, double best, double xi);

}  // namespace ar
