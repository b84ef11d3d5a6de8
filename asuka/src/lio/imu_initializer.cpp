#include <asuka/lio/imu_initializer.hpp>

#include <algorithm>
#include <cmath>

#include <asuka/math/so3.hpp>

namespace asuka::lio {

ImuInitializer::ImuInitializer(std::size_t max_init_count, const Eigen::Vector3d& gravity_world)
: max_count_(std::max<std::size_t>(1, max_init_count)), gravity_world_(gravity_world) {}

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
  if (count_ > max_count_) initialized_ = true;
  return initialized_;
}

void ImuInitializer::reset() {
  count_ = 0;
  initialized_ = false;
  mean_acc_.setZero();
  mean_gyro_.setZero();
  max_dev_ = 0.0;
}

Eigen::Matrix3d ImuInitializer::rotation() const {
  // R-IMU-3: the accelerometer at rest measures -gravity (up); rotate it onto -gravity_world.
  return so3::align(mean_acc_, -gravity_world_);
}

}  // namespace asuka::lio
