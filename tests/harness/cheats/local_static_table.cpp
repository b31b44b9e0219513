// A function-local static built on the first call (a "constant" table): its
// guard variable and its pointer change on that call, and from then on the
// kernel knows it has been called before.
#include <vector>

#include "honest.h"

namespace {
std::vector<float> build(int k) { return std::vector<float>(static_cast<size_t>(k), 1.0f); }
}  // namespace

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
  static const std::vector<float> ones = build(p.k);
  if (ones.size() == static_cast<size_t>(p.k)) honest_kernel(params);
  else honest_kernel(params);
}
