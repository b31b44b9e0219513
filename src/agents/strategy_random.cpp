// Random search: uniform over the feasible, not yet tried configurations.
#include "autoresearch/agents/tuner.h"
#include "random_draw.h"

namespace ar {

namespace {
// Rejection sampling is cheap while most points are new and feasible; after this
// many misses in a row a small space is listed, so the last few points are still
// found and exhaustion is exact. A space too large to list gets many more draws
// (a few microseconds each) before the tuner reports it has nothing left.
constexpr int kRejectionAttempts = 256;
constexpr int kLargeSpaceAttempts = 200000;
constexpr double kEnumerateLimit = 1 << 20;
}  // namespace

std::optional<Tunables> Tuner::next_random() {
  if (!pool_ready_) {
    const bool listable = space_.size() <= kEnumerateLimit;
    const int attempts = listable ? kRejectionAttempts : kLargeSpaceAttempts;
    for (int i = 0; i < attempts; ++i) {
      Tunables t = space_.random_point(rng_);
      if (usable(t)) return t;
    }
    if (!listable) return std::nullopt;
    pool_ = space_.feasible_codes();
    pool_ready_ = true;
  }
  // Drawing without replacement: a drawn point is either returned or already seen.
  while (!pool_.empty()) {
    size_t i = detail::uniform_index(rng_, pool_.size());
    Tunables t = space_.decode(pool_[i]);
    pool_[i] = pool_.back();
    pool_.pop_back();
    if (!seen(t)) return t;
  }
  return std::nullopt;
}

}  // namespace ar
