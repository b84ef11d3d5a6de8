#include <asuka_sim/degeneracy_truth.hpp>

#include <cmath>
#include <cstdint>
#include <unordered_set>

#include <asuka/lio/degeneracy.hpp>
#include <asuka/math/so3.hpp>

namespace asuka::sim {

Localizability frame_localizability(const std::vector<SurfaceSample>& surfaces, const Eigen::Isometry3d& T_world_imu, double voxel, double threshold) {
  const Eigen::Vector3d c = T_world_imu.translation();
  std::unordered_set<std::uint64_t> seen;
  seen.reserve(surfaces.size());
  lio::PoseInformation info;
  for (const auto& s : surfaces) {
    const Eigen::Vector3d q = s.p_world - c;
    // 21 bits per axis: +-1000 km at 0.5 m voxels.
    const auto key = [&](int k) { return static_cast<std::uint64_t>(static_cast<std::int64_t>(std::floor(q[k] / voxel)) + (1 << 20)) & 0x1FFFFF; };
    if (!seen.insert(key(0) | (key(1) << 21) | (key(2) << 42)).second) continue;
    Eigen::Matrix<double, 1, 6> row;
    row.head<3>() = q.cross(s.normal).transpose();
    row.tail<3>() = s.normal.transpose();
    info.add(row, q);
  }
  // The rows' rotation is about world axes already.
  return lio::analyze_localizability(info, Eigen::Matrix3d::Identity(), threshold);
}

DeadReckoning::DeadReckoning(const Trajectory& trajectory, double static_duration, double clock0)
    : trajectory_(trajectory), static_duration_(static_duration), clock0_(clock0) {}

void DeadReckoning::add(const ImuSample& sample, std::vector<StampedPose>& out) {
  if (!started_) {
    if (static_duration_ >= 0.05 && sample.measured.stamp <= static_duration_) {
      acc_sum_ += sample.measured.acc;
      gyro_sum_ += sample.measured.gyro;
      ++static_samples_;
      previous_ = sample;
      return;
    }
    // The first sample after the static start: begin at the last static one (or at this one
    // without a static start).
    start(static_samples_ > 0 ? previous_ : sample, out);
    if (static_samples_ == 0) return;
  }
  const double dt = sample.measured.stamp - previous_.measured.stamp;
  const Eigen::Vector3d a = R_ * previous_.measured.acc + Eigen::Vector3d(0.0, 0.0, -kGravity);
  p_ += v_ * dt + 0.5 * a * dt * dt;
  v_ += a * dt;
  R_ = R_ * so3::exp((previous_.measured.gyro - bg_) * dt);
  previous_ = sample;
  emit(sample.measured.stamp, out);
}

void DeadReckoning::start(const ImuSample& first, std::vector<StampedPose>& out) {
  started_ = true;
  const double t0 = first.measured.stamp;
  const Eigen::Isometry3d T0 = trajectory_.pose(t0);
  R_ = T0.linear();
  if (static_samples_ > 0) {
    const Eigen::Vector3d acc_mean = acc_sum_ / static_cast<double>(static_samples_);
    bg_ = gyro_sum_ / static_cast<double>(static_samples_);
    // Level: the mean specific force, seen in the world, points straight up.
    const Eigen::Quaterniond level = Eigen::Quaterniond::FromTwoVectors(R_ * acc_mean, Eigen::Vector3d::UnitZ());
    R_ = level.toRotationMatrix() * R_;
  }
  p_ = T0.translation();
  v_ = trajectory_.velocity(t0);
  previous_ = first;
  emit(t0, out);
}

void DeadReckoning::emit(double stamp, std::vector<StampedPose>& out) const {
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.linear() = R_;
  T.translation() = p_;
  out.push_back({clock0_ + stamp, T});
}

}  // namespace asuka::sim
