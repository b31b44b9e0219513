#include "autoresearch/measure/binomial_interval.h"

#include <cmath>

#include "catch.h"

namespace ar {

TEST_CASE("clopper_pearson: closed forms at k = 0 and k = n", "[measure]") {
  // P(X = 0) = (1 - p)^n, so the bounds have closed forms to check against.
  CHECK(clopper_pearson(0, 300).low == 0);
  CHECK(clopper_pearson(0, 300).high == Approx(1 - std::pow(0.025, 1.0 / 300)).epsilon(1e-9));
  CHECK(clopper_pearson_upper(0, 300) == Approx(1 - std::pow(0.05, 1.0 / 300)).epsilon(1e-9));
  CHECK(clopper_pearson_upper(0, 300) < 0.01);   // 0 of 300 meets SPEC §8's <= 1%, one-sided
  CHECK(clopper_pearson(150, 150).low == Approx(std::pow(0.025, 1.0 / 150)).epsilon(1e-9));
  CHECK(clopper_pearson(150, 150).high == 1);
}

TEST_CASE("clopper_pearson: matches the Beta quantiles", "[measure]") {
  // Beta(k, n-k+1) at 2.5% and Beta(k+1, n-k) at 97.5%, as binom.test gives them:
  // 5 of 10: (0.1871, 0.8129); 1 of 300: (0.0000844, 0.0184).
  auto half = clopper_pearson(5, 10);
  CHECK(half.low == Approx(0.187086).epsilon(1e-4));
  CHECK(half.high == Approx(0.812914).epsilon(1e-4));
  auto one = clopper_pearson(1, 300);
  CHECK(one.low == Approx(8.4389e-05).epsilon(1e-3));
  CHECK(one.high == Approx(0.018431).epsilon(1e-3));
}

TEST_CASE("clopper_pearson: degenerate inputs stay in [0, 1]", "[measure]") {
  CHECK(clopper_pearson(0, 0).low == 0);
  CHECK(clopper_pearson(0, 0).high == 1);
  CHECK(clopper_pearson(7, 5).high == 1);
  CHECK(clopper_pearson(-1, 5).low == 0);
}

}  // namespace ar
