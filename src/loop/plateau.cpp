// The plateau rule (plateau.h).
#include "autoresearch/loop/plateau.h"

#include <algorithm>

#include <fmt/format.h>

namespace ar {

long long plateau_window(int configured, std::optional<long long> untried_at_keep) {
  if (configured <= 0) return 0;
  if (!untried_at_keep) return configured;
  return std::min<long long>(configured, std::max<long long>(1, (*untried_at_keep + 1) / 2));
}

std::string plateau_reason(int configured, std::optional<long long> untried_at_keep, long long since_keep) {
  long long window = plateau_window(configured, untried_at_keep);
  if (window <= 0 || since_keep < window) return "";
  if (window < configured)
    return fmt::format("plateau: {} candidates without a keep (half of the {} configurations untried at the last "
                       "keep; --plateau {})",
                       since_keep, *untried_at_keep, configured);
  return fmt::format("plateau: {} candidates without a keep", since_keep);
}

}  // namespace ar
