// The Gaussian process behind the bayes strategy, on functions whose answers
// are known.
#include <cmath>

#include "autoresearch/agents/gaussian_process.h"
#include "catch.h"

namespace ar {
namespace {

std::vector<std::vector<double>> grid_1d(int n) {
  std::vector<std::vector<double>> x;
  for (int i = 0; i < n; ++i) x.push_back({static_cast<double>(i) / (n - 1)});
  return x;
}

TEST_CASE("a Gaussian process interpolates what it saw and is unsure far from it") {
  auto x = grid_1d(6);
  std::vector<double> y;
  for (const auto& p : x) y.push_back(std::sin(3 * p[0]));
  GpHyperparameters h;
  h.length_scales = {0.4};
  h.noise_variance = 1e-6;
  auto gp = GaussianProcess::fit(x, y, h);
  REQUIRE(gp);
  for (size_t i = 0; i < x.size(); ++i) {
    auto p = gp->predict(x[i]);
    CHECK(p.mean == Approx(y[i]).margin(1e-3));
    CHECK(p.variance < 1e-3);
  }
  // Between two observations: close to the function; outside the data: unsure.
  CHECK(gp->predict({0.5}).mean == Approx(std::sin(1.5)).margin(0.05));
  CHECK(gp->predict({3.0}).variance > 10 * gp->predict({0.5}).variance);
}

TEST_CASE("the hyperparameters the likelihood picks fit the data's scale and ignore an irrelevant input") {
  // y depends on the first input only; the second is noise-free but irrelevant.
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 4; ++j) {
      const double a = i / 6.0, b = j / 3.0;
      x.push_back({a, b});
      y.push_back(std::cos(4 * a));
    }
  GpHyperparameters h = select_hyperparameters(x, y);
  REQUIRE(h.length_scales.size() == 2);
  CHECK(h.length_scales[1] > 2 * h.length_scales[0]);
  auto gp = GaussianProcess::fit(x, y, h);
  REQUIRE(gp);
  // The likelihood prefers what it chose to a deliberately poor choice.
  GpHyperparameters poor = h;
  poor.length_scales = {0.02, 0.02};
  auto worse = GaussianProcess::fit(x, y, poor);
  REQUIRE(worse);
  CHECK(gp->log_marginal_likelihood() > worse->log_marginal_likelihood());
  CHECK(gp->predict({0.5, 0.9}).mean == Approx(std::cos(2.0)).margin(0.1));
}

TEST_CASE("expected improvement prefers a lower mean and, at equal means, more uncertainty") {
  const double best = 1.0;
  CHECK(expected_improvement({0.5, 0.01}, best, 0) > expected_improvement({0.9, 0.01}, best, 0));
  CHECK(expected_improvement({1.0, 0.25}, best, 0) > expected_improvement({1.0, 0.01}, best, 0));
  CHECK(expected_improvement({2.0, 0.0}, best, 0) == 0);
  CHECK(expected_improvement({0.7, 0.0}, best, 0) == Approx(0.3));
  CHECK(expected_improvement({3.0, 1e-4}, best, 0) >= 0);
}

TEST_CASE("fitting nothing, or inputs and outputs that disagree in number, gives no model") {
  GpHyperparameters h;
  h.length_scales = {0.5};
  CHECK_FALSE(GaussianProcess::fit({}, {}, h));
  CHECK_FALSE(GaussianProcess::fit({{0.0}, {1.0}}, {1.0}, h));
}

}  // namespace
}  // namespace ar
