#include <asuka/lio/imu_initializer.hpp>

#include <algorithm>
#include <cmath>

#include <asuka/math/so3.hpp>

namespace asuka::lio {

ImuInitializer::ImuInitializer(std::size_t max_init_count, const Eigen::Vector3d& gravity_world)
: ImuInitializer(ImuInitializerParams{max_init_count, gravity_world, true}) {}

ImuInitializer::ImuInitializer(const ImuInitializerParams& params) : pending_(params) { reset(); }

bool ImuInitializer::add(const ImuData& imu) {
  if (initialized_) return false;
  ++count_;
  if (count_ == 1) {
    // R-IMU-1: seed with the first sample, then incremental means.
    mean_acc_ = imu.acc;
    mean_gyro_ = imu.gyro;
  } else {
    mean_acc_ += (imu.acc - mean_acc_) / static_cast<double>(count_);
    mean_gyro_ += (imu.gyro - mean_gyro_) / static_cast<double>(count_);
  }
  max_dev_ = std::max(max_dev_, std::fabs(imu.acc.norm() - mean_acc_.norm()));
  if (count_ > active_.max_init_count) initialized_ = true;
  return initialized_;
}

bool ImuInitializer::process(const std::vector<ImuData>& package, const std::vector<ImuData>& history) {
  if (initialized_) return true;
  if (!history.empty()) {
    // R-IMU-2: the full history replaces the package; restart the means so that the samples
    // already counted from it are not counted again.
    count_ = 0;
    max_dev_ = 0.0;
    for (const auto& imu : history) {
      if (add(imu)) break;
    }
    return initialized_;
  }
  for (const auto& imu : package) {
    if (add(imu)) break;
  }
  return initialized_;
}

void ImuInitializer::reset() {
  active_ = pending_;
  active_.max_init_count = std::max<std::size_t>(1, active_.max_init_count);
  count_ = 0;
  initialized_ = !active_.imu_enabled;  // without an IMU there is nothing to wait for
  mean_acc_ = active_.imu_enabled ? Eigen::Vector3d::Zero() : Eigen::Vector3d(-active_.gravity_world);
  mean_gyro_.setZero();
  max_dev_ = 0.0;
}

Eigen::Matrix3d ImuInitializer::rotation() const {
  // R-IMU-3: the accelerometer at rest measures -gravity (up); rotate it onto -gravity_world.
  return so3::align(mean_acc_, -active_.gravity_world);
}

}  // namespace asuka::lio
