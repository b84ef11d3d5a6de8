#pragma once
// #17: is the sensor still at rest as it was while the IMU initialized? After a static
// initialization the filter frontends hold the state at rest until the IMU shows motion
// (filter_frontend.hpp). A level spinning lidar's one-scan map has no planes (each line on the
// ground and on the walls is a strip), so over a static start the LiDAR holds nothing: the IMU's
// bias made the state sink and slide, and the scans inserted at the drifting poses smeared the map
// before the motion began (VLP-16 starts in the generated field and city: 5-20 m, exit 0).
//
// The test compares each scan's IMU samples with the initialization's: the mean of the scan's
// samples within max(kMinMeanAcc, kSigmas sigma / sqrt(n)) of the initialization's mean on every
// axis, and every sample within kSigmas sigma + kMinMeanAcc (likewise for the gyroscope), sigma the
// initialization's per-axis spread. A sensor starting to move shows within a scan or two (a
// hand-held start's smooth ramp: 0.1 s, 0.1 mm); a constant velocity never shows, which is why the
// hold starts only when the LiDAR measured no velocity over the initialization (#12).

#include <algorithm>
#include <cmath>
#include <vector>

#include <Eigen/Core>

#include <asuka/core/types.hpp>

namespace asuka::lio {

class RestDetector {
public:
  static constexpr double kSigmas = 5.0;
  static constexpr double kMinMeanAcc = 0.05;    ///< [m/s^2] a mean deviation always allowed (bias drift over minutes)
  static constexpr double kMinMeanGyro = 0.005;  ///< [rad/s]

  /// The initialization's mean readings and per-axis spreads (ImuInitializer).
  void start(const Eigen::Vector3d& mean_acc, const Eigen::Vector3d& mean_gyro, double acc_std, double gyro_std) {
    mean_acc_ = mean_acc;
    mean_gyro_ = mean_gyro;
    acc_std_ = acc_std;
    gyro_std_ = gyro_std;
  }

  /// Whether the samples stamped after `from` read as that rest. No sample: no evidence of motion.
  bool still(const std::vector<ImuData>& samples, double from) const {
    Eigen::Vector3d acc_sum = Eigen::Vector3d::Zero(), gyro_sum = Eigen::Vector3d::Zero();
    int n = 0;
    const double acc_sample = kSigmas * acc_std_ + kMinMeanAcc, gyro_sample = kSigmas * gyro_std_ + kMinMeanGyro;
    for (const auto& s : samples) {
      if (s.stamp <= from) continue;
      const Eigen::Vector3d da = s.acc - mean_acc_, dg = s.gyro - mean_gyro_;
      if (da.cwiseAbs().maxCoeff() > acc_sample || dg.cwiseAbs().maxCoeff() > gyro_sample) return false;
      acc_sum += da;
      gyro_sum += dg;
      ++n;
    }
    if (n == 0) return true;
    const double root = std::sqrt(static_cast<double>(n));
    const double acc_mean = std::max(kMinMeanAcc, kSigmas * acc_std_ / root), gyro_mean = std::max(kMinMeanGyro, kSigmas * gyro_std_ / root);
    return (acc_sum / n).cwiseAbs().maxCoeff() <= acc_mean && (gyro_sum / n).cwiseAbs().maxCoeff() <= gyro_mean;
  }

private:
  Eigen::Vector3d mean_acc_ = Eigen::Vector3d::Zero(), mean_gyro_ = Eigen::Vector3d::Zero();
  double acc_std_ = 0.0, gyro_std_ = 0.0;
};

}  // namespace asuka::lio
