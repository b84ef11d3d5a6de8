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
    sq_acc_.setZero();
    sq_gyro_.setZero();
    samples_.clear();
  } else {
    const Eigen::Vector3d da = imu.acc - mean_acc_, dg = imu.gyro - mean_gyro_;
    mean_acc_ += da / static_cast<double>(count_);
    mean_gyro_ += dg / static_cast<double>(count_);
    sq_acc_ += da.cwiseProduct(imu.acc - mean_acc_);
    sq_gyro_ += dg.cwiseProduct(imu.gyro - mean_gyro_);
  }
  samples_.push_back(imu);
  if (count_ > active_.max_init_count) initialized_ = true;
  return initialized_;
}

bool ImuInitializer::process(const std::vector<ImuData>& package, const std::vector<ImuData>& history) {
  if (initialized_) return true;
  if (!history.empty()) {
    // R-IMU-2: the full history replaces the package; restart the means so that the samples
    // already counted from it are not counted again.
    count_ = 0;
    samples_.clear();
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
  sq_acc_.setZero();
  sq_gyro_.setZero();
  samples_.clear();
}

double ImuInitializer::gyro_std() const { return count_ > 1 ? std::sqrt(sq_gyro_.maxCoeff() / static_cast<double>(count_ - 1)) : 0.0; }
double ImuInitializer::acc_std() const { return count_ > 1 ? std::sqrt(sq_acc_.maxCoeff() / static_cast<double>(count_ - 1)) : 0.0; }

bool ImuInitializer::moving() const {
  if (!active_.imu_enabled || count_ < 2) return false;
  return gyro_std() > kMovingGyroStd || acc_std() > kMovingAccStd || mean_gyro_.norm() > kMovingGyroMean;
}

Eigen::Matrix3d ImuInitializer::rotation_from_motion(const std::vector<ImuData>& later, double end) const {
  if (samples_.size() < 2) return rotation();
  // Orientations relative to the first sample, by mid-point integration of the rates; then every
  // specific force into the frame of the last sample.
  std::vector<Eigen::Matrix3d> R(samples_.size(), Eigen::Matrix3d::Identity());
  for (std::size_t k = 1; k < samples_.size(); ++k) {
    const double dt = std::max(0.0, samples_[k].stamp - samples_[k - 1].stamp);
    R[k] = R[k - 1] * so3::exp(0.5 * (samples_[k].gyro + samples_[k - 1].gyro) * dt);
  }
  const Eigen::Matrix3d R_last_inv = R.back().transpose();
  Eigen::Vector3d mean = Eigen::Vector3d::Zero();
  for (std::size_t k = 0; k < samples_.size(); ++k) mean += R_last_inv * R[k] * samples_[k].acc;
  mean /= static_cast<double>(samples_.size());
  // On from the last averaged sample through the later ones to `end`: R_world_imu at `end`.
  Eigen::Matrix3d R_on = Eigen::Matrix3d::Identity();
  ImuData previous = samples_.back();
  for (const ImuData& imu : later) {
    if (imu.stamp <= previous.stamp) continue;
    const double t1 = std::min(imu.stamp, end);
    if (t1 > previous.stamp) R_on = R_on * so3::exp(0.5 * (imu.gyro + previous.gyro) * (t1 - previous.stamp));
    if (imu.stamp >= end) return so3::align(mean, -active_.gravity_world) * R_on;
    previous = imu;
  }
  if (end > previous.stamp && end - previous.stamp < 1.0) R_on = R_on * so3::exp(previous.gyro * (end - previous.stamp));
  return so3::align(mean, -active_.gravity_world) * R_on;
}

Eigen::Matrix3d ImuInitializer::rotation() const {
  // R-IMU-3: the accelerometer at rest measures -gravity (up); rotate it onto -gravity_world.
  return so3::align(mean_acc_, -active_.gravity_world);
}

}  // namespace asuka::lio
