#pragma once
// Summary statistics of a stream of positive values (per-scan times, latencies) in bounded memory
// (#18: a run of hours must not keep one number per scan to report a percentile). Quantiles come
// from a logarithmic histogram with 1 % wide bins between 1e-7 and 1e3: exact to 1 %, about 2300
// counters whatever the length of the run. The mean, the maximum and the count are exact.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace asuka {

class RunningStats {
public:
  RunningStats();
  void add(double value);
  std::size_t count() const { return count_; }
  double sum() const { return sum_; }
  double mean() const { return count_ > 0 ? sum_ / static_cast<double>(count_) : 0.0; }
  double max() const { return max_; }
  /// The value below which a share `q` (0..1) of the values lie, to 1 %; the maximum for q = 1; 0
  /// without values.
  double quantile(double q) const;

private:
  std::vector<std::uint32_t> bins_;
  std::size_t count_ = 0;
  double sum_ = 0.0;
  double max_ = 0.0;
};

}  // namespace asuka
