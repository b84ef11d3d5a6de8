#pragma once
// The weighted median: the value at which the sorted weights reach half their total. Shared by the
// extrinsic rotation check (asuka/lio/extrinsic_check.cpp) and the simulator's colour check
// (tools/sim/src/colour_check.cpp).

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

namespace asuka {

/// The weighted median of (value, weight) pairs (weights >= 0); nothing when there are no pairs or
/// no weight. Sorts `pairs`.
inline std::optional<double> weighted_median(std::vector<std::pair<double, double>>& pairs) {
  double total = 0.0;
  for (const auto& p : pairs) total += p.second;
  if (pairs.empty() || total <= 0.0) return std::nullopt;
  std::sort(pairs.begin(), pairs.end());
  double sum = 0.0;
  for (const auto& [value, weight] : pairs) {
    sum += weight;
    if (sum >= 0.5 * total) return value;
  }
  return pairs.back().first;
}

}  // namespace asuka
