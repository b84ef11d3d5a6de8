#include <asuka/util/running_stats.hpp>

#include <algorithm>
#include <cmath>

namespace asuka {

namespace {

constexpr double kLowest = 1e-7;   // values at or below land in the first bin
constexpr double kHighest = 1e3;   // values above land in the last bin
const double kLogStep = std::log(1.01);
const std::size_t kBins = static_cast<std::size_t>(std::ceil(std::log(kHighest / kLowest) / kLogStep)) + 2;

std::size_t bin_of(double value) {
  if (!(value > kLowest)) return 0;
  if (value > kHighest) return kBins - 1;
  return std::min(kBins - 2, static_cast<std::size_t>(std::log(value / kLowest) / kLogStep) + 1);
}

/// The upper edge of bin b: every value in it is at most this and more than 1/1.01 of it.
double upper_edge(std::size_t b) { return b == 0 ? kLowest : kLowest * std::exp(static_cast<double>(b) * kLogStep); }

}  // namespace

RunningStats::RunningStats() : bins_(kBins, 0) {}

void RunningStats::add(double value) {
  if (!std::isfinite(value)) return;
  ++bins_[bin_of(value)];
  ++count_;
  sum_ += value;
  max_ = count_ == 1 ? value : std::max(max_, value);
}

double RunningStats::quantile(double q) const {
  if (count_ == 0) return 0.0;
  if (q >= 1.0) return max_;
  // The same rank as a sorted list's element round(q (n - 1)).
  const auto rank = static_cast<std::size_t>(std::max(0.0, q) * static_cast<double>(count_ - 1) + 0.5);
  std::size_t seen = 0;
  for (std::size_t b = 0; b < bins_.size(); ++b) {
    seen += bins_[b];
    if (seen > rank) return std::min(upper_edge(b), max_);
  }
  return max_;
}

}  // namespace asuka
