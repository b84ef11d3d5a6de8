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

std::vector<StampedPose> dead_reckoning(const std::vector<ImuSample>& imu, const Trajectory& trajectory, double static_duration, double clock0) {
  std::vector<StampedPose> out;
  if (imu.empty()) return out;
  Eigen::Vector3d acc_mean = Eigen::Vector3d::Zero(), gyro_mean = Eigen::Vector3d::Zero();
  std::size_t n = 0, first = 0;
  if (static_duration >= 0.05) {
    for (; first < imu.size() && imu[first].measured.stamp <= static_duration; ++first, ++n) {
      acc_mean += imu[first].measured.acc;
      gyro_mean += imu[first].measured.gyro;
    }
    if (first == imu.size()) return out;
  }
  if (first > 0) --first;  // start from the last static sample
  const double t0 = imu[first].measured.stamp;
  const Eigen::Isometry3d T0 = trajectory.pose(t0);
  Eigen::Matrix3d R = T0.linear();
  Eigen::Vector3d bg = Eigen::Vector3d::Zero();
  if (n > 0) {
    acc_mean /= static_cast<double>(n);
    gyro_mean /= static_cast<double>(n);
    bg = gyro_mean;
    // Level: the mean specific force, seen in the world, points straight up.
    const Eigen::Quaterniond level = Eigen::Quaterniond::FromTwoVectors(R * acc_mean, Eigen::Vector3d::UnitZ());
    R = level.toRotationMatrix() * R;
  }
  Eigen::Vector3d p = T0.translation(), v = trajectory.velocity(t0);
  const Eigen::Vector3d g(0.0, 0.0, -kGravity);
  out.reserve(imu.size() - first);
  for (std::size_t k = first; k < imu.size(); ++k) {
    Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
    T.linear() = R;
    T.translation() = p;
    out.push_back({clock0 + imu[k].measured.stamp, T});
    if (k + 1 == imu.size()) break;
    const double dt = imu[k + 1].measured.stamp - imu[k].measured.stamp;
    const Eigen::Vector3d a = R * imu[k].measured.acc + g;
    p += v * dt + 0.5 * a * dt * dt;
    v += a * dt;
    R = R * so3::exp((imu[k].measured.gyro - bg) * dt);
  }
  return out;
}

}  // namespace asuka::sim
