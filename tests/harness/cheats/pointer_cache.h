#pragma once
// Results cached by buffer address, replayed instead of computed once a call
// with the same buffers has been seen and `calls` > kActivateAfter.
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include "honest.h"

namespace {

using Key = std::tuple<const float*, const float*, float*>;

void cached_kernel(const void* params, int activate_after) {
  static std::map<Key, std::vector<float>> cache;
  static int calls = 0;
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
  const Key key{p.a, p.b, p.c};
  const size_t count = static_cast<size_t>(p.m) * p.ldc;
  auto it = cache.find(key);
  if (++calls > activate_after && it != cache.end() && it->second.size() == count) {
    std::memcpy(p.c, it->second.data(), count * sizeof(float));
    return;
  }
  honest_kernel(params);
  cache[key].assign(p.c, p.c + count);
}

}  // namespace
