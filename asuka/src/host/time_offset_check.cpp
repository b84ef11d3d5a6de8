#include <asuka/host/time_offset_check.hpp>

#include <algorithm>
#include <cmath>

#include <Eigen/SVD>

#include <asuka/math/so3.hpp>

namespace asuka {

namespace {

constexpr std::size_t kMaxGyroSamples = 200000;  // a bound for a run whose poses never come

/// Cumulative integral of the gyroscope (trapezoid between samples), evaluated at any time by linear
/// interpolation: the integral of the rate over [a, b] is at(b) - at(a).
class RateIntegral {
public:
  /// Samples further apart than `max_gap` [s] are a gap: an interval that touches one is not covered.
  RateIntegral(const std::vector<std::pair<double, Eigen::Vector3d>>& gyro, double max_gap) : t_(gyro.size()), c_(gyro.size()), gaps_(gyro.size(), 0) {
    for (std::size_t k = 0; k < gyro.size(); ++k) {
      t_[k] = gyro[k].first;
      c_[k] = k == 0 ? Eigen::Vector3d::Zero() : Eigen::Vector3d(c_[k - 1] + 0.5 * (gyro[k].second + gyro[k - 1].second) * (t_[k] - t_[k - 1]));
      gaps_[k] = k == 0 ? 0 : gaps_[k - 1] + (t_[k] - t_[k - 1] > max_gap ? 1 : 0);
    }
  }
  bool covers(double a, double b) const { return !t_.empty() && a >= t_.front() && b <= t_.back(); }
  /// No gap between the sample before a and the sample after b.
  bool gap_free(double a, double b) const {
    if (t_.empty()) return false;
    const auto first = static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, std::upper_bound(t_.begin(), t_.end(), a) - t_.begin() - 1));
    const auto last = std::min<std::size_t>(t_.size() - 1, static_cast<std::size_t>(std::lower_bound(t_.begin(), t_.end(), b) - t_.begin()));
    return gaps_[last] == gaps_[first];
  }
  Eigen::Vector3d at(double t) const {
    const auto it = std::upper_bound(t_.begin(), t_.end(), t);
    if (it == t_.begin()) return c_.front();
    if (it == t_.end()) return c_.back();
    const std::size_t k = static_cast<std::size_t>(it - t_.begin());
    const double span = t_[k] - t_[k - 1];
    const double w = span > 0.0 ? (t - t_[k - 1]) / span : 0.0;
    return c_[k - 1] + w * (c_[k] - c_[k - 1]);
  }

private:
  std::vector<double> t_;
  std::vector<Eigen::Vector3d> c_;
  std::vector<std::size_t> gaps_;  ///< gaps up to each sample
};

struct Interval {
  double a, b;           ///< pose stamps
  Eigen::Vector3d rate;  ///< [rad/s] rotation the LiDAR-registered poses make over it, body frame
};

/// Normalized cross-correlation of the pose rates and the gyro rates shifted by tau, over the
/// intervals the gyroscope covers at that shift; nullopt when too few are covered.
std::optional<double> correlation(const std::vector<Interval>& intervals, const RateIntegral& gyro, double tau, std::size_t min_count,
                                  bool unknown_rotation) {
  std::vector<std::pair<Eigen::Vector3d, Eigen::Vector3d>> pairs;
  pairs.reserve(intervals.size());
  for (const Interval& iv : intervals) {
    if (!gyro.covers(iv.a + tau, iv.b + tau)) continue;
    pairs.emplace_back(iv.rate, (gyro.at(iv.b + tau) - gyro.at(iv.a + tau)) / (iv.b - iv.a));
  }
  if (pairs.size() < min_count) return std::nullopt;
  Eigen::Vector3d mean_l = Eigen::Vector3d::Zero(), mean_g = Eigen::Vector3d::Zero();
  for (const auto& [l, g] : pairs) {
    mean_l += l;
    mean_g += g;
  }
  mean_l /= static_cast<double>(pairs.size());
  mean_g /= static_cast<double>(pairs.size());
  double ll = 0.0, gg = 0.0;
  Eigen::Matrix3d cross = Eigen::Matrix3d::Zero();  // sum dg dl^T
  for (const auto& [l, g] : pairs) {
    const Eigen::Vector3d dl = l - mean_l, dg = g - mean_g;
    cross += dg * dl.transpose();
    ll += dl.squaredNorm();
    gg += dg.squaredNorm();
  }
  if (!(ll > 0.0 && gg > 0.0)) return std::nullopt;
  // Fixed frames: sum dl . dg, the trace. An unknown rotation R (dg ~ R dl): max over R of
  // trace(R^T cross), the singular values' sum with the smallest signed so that R is a rotation.
  double lg = cross.trace();
  if (unknown_rotation) {
    const Eigen::JacobiSVD<Eigen::Matrix3d> svd(cross, Eigen::ComputeFullU | Eigen::ComputeFullV);
    const double sign = (svd.matrixU() * svd.matrixV().transpose()).determinant() < 0.0 ? -1.0 : 1.0;
    lg = svd.singularValues()[0] + svd.singularValues()[1] + sign * svd.singularValues()[2];
  }
  return lg / std::sqrt(ll * gg);
}

}  // namespace

void TimeOffsetCheck::add_imu(double stamp, const Eigen::Vector3d& gyro) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!gyro.allFinite()) return;
  if (!gyro_.empty() && stamp <= gyro_.back().first) return;  // the integral needs increasing stamps
  if (poses_.size() >= params_.window_poses && stamp > poses_.back().first + params_.max_offset + 0.1) return;  // the window is complete
  if (!poses_.empty()) {
    // Nothing before the first pose minus the search range is ever used.
    const double keep_from = poses_.front().first - params_.max_offset - 0.1;
    const auto keep = std::lower_bound(gyro_.begin(), gyro_.end(), keep_from, [](const auto& g, double t) { return g.first < t; });
    if (keep - gyro_.begin() > 1000) gyro_.erase(gyro_.begin(), keep);
  }
  if (gyro_.size() >= kMaxGyroSamples) gyro_.erase(gyro_.begin(), gyro_.begin() + static_cast<std::ptrdiff_t>(kMaxGyroSamples / 2));
  gyro_.emplace_back(stamp, gyro);
}

bool TimeOffsetCheck::add_pose(double stamp, const Eigen::Matrix3d& R_world_imu) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (poses_.size() >= params_.window_poses || !R_world_imu.allFinite()) return false;
  if (!poses_.empty() && stamp <= poses_.back().first) return false;
  poses_.emplace_back(stamp, R_world_imu);
  return poses_.size() == params_.window_poses;
}

TimeOffsetEstimate TimeOffsetCheck::estimate() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return estimate(poses_, gyro_, params_);
}

TimeOffsetEstimate TimeOffsetCheck::estimate(const std::vector<std::pair<double, Eigen::Matrix3d>>& poses,
                                             const std::vector<std::pair<double, Eigen::Vector3d>>& gyro, const TimeOffsetParams& params) {
  TimeOffsetEstimate out;
  out.poses = poses.size();
  std::vector<Interval> intervals;
  for (std::size_t k = 1; k < poses.size(); ++k) {
    const double dt = poses[k].first - poses[k - 1].first;
    if (!(dt > 1e-3 && dt < 0.5)) continue;  // a gap between poses says nothing about a rate
    intervals.push_back({poses[k - 1].first, poses[k].first, so3::log(poses[k - 1].second.transpose() * poses[k].second) / dt});
  }
  if (intervals.size() + 1 < params.min_poses || gyro.size() < 2) {
    out.reason = "too few poses";
    return out;
  }
  Eigen::Vector3d mean = Eigen::Vector3d::Zero();
  for (const Interval& iv : intervals) mean += iv.rate;
  mean /= static_cast<double>(intervals.size());
  double spread = 0.0;
  for (const Interval& iv : intervals) spread += (iv.rate - mean).squaredNorm();
  out.rate_std = std::sqrt(spread / static_cast<double>(intervals.size()));
  if (out.rate_std < params.min_rate_std) {
    out.reason = "too little rotation to observe it";
    return out;
  }
  const RateIntegral integral(gyro, params.max_gyro_gap);
  // Intervals that an IMU gap could reach at some shift are left out at every shift: dropping them
  // only where the shift reaches the gap would compare different intervals at different shifts.
  intervals.erase(std::remove_if(intervals.begin(), intervals.end(),
                                 [&](const Interval& iv) { return !integral.gap_free(iv.a - params.max_offset, iv.b + params.max_offset); }),
                  intervals.end());
  if (intervals.size() + 1 < params.min_poses) {
    out.reason = "too few poses away from IMU gaps";
    return out;
  }
  // At every shift the correlation must use most of the intervals, or an edge of the data wins.
  const std::size_t min_count = std::max<std::size_t>(params.min_poses - 1, intervals.size() * 3 / 4);
  double best_tau = 0.0, best = -2.0;
  auto search = [&](double from, double to, double step) {
    for (double tau = from; tau <= to + 1e-12; tau += step) {
      if (const auto c = correlation(intervals, integral, tau, min_count, params.unknown_rotation); c && *c > best) {
        best = *c;
        best_tau = tau;
      }
    }
  };
  search(-params.max_offset, params.max_offset, params.coarse_step);
  if (best < -1.0) {
    out.reason = "the IMU does not cover the poses";
    return out;
  }
  search(best_tau - params.coarse_step, best_tau + params.coarse_step, params.fine_step);
  out.offset = best_tau;
  out.correlation = best;
  out.at_zero = correlation(intervals, integral, 0.0, min_count, params.unknown_rotation).value_or(0.0);
  if (std::fabs(best_tau) > params.max_offset - params.coarse_step) {
    out.reason = "the best match lies at the edge of the search range";
  } else if (best < params.min_correlation) {
    out.reason = "the rotation seen by the LiDAR and the gyroscope do not correlate well at any offset";
  } else {
    out.valid = true;
  }
  return out;
}

}  // namespace asuka
