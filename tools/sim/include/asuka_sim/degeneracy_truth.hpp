#pragma once
// #21: what the scene itself says about degeneracy and about the IMU alone, for the benchmark.
//   frame_localizability  the localizability of one frame computed from its exact hits (true points,
//                         true normals), normalized as the frontends normalize (asuka/lio/degeneracy.hpp)
//   dead_reckoning        the IMU alone from the state a filter starts from: the bound a LiDAR frontend
//                         must not be worse than along an unconstrained direction

#include <vector>

#include <Eigen/Geometry>

#include <asuka/core/types.hpp>
#include <asuka/io/trajectory_io.hpp>
#include <asuka_sim/imu_model.hpp>
#include <asuka_sim/lidar_model.hpp>
#include <asuka_sim/trajectory.hpp>

namespace asuka::sim {

/// The localizability of the IMU pose T_world_imu given the surfaces a frame hit: one row
/// [((p - c) x n)^T, n^T] per point (c the IMU position), after keeping the first point per voxel of
/// `voxel` [m] as the frontends' scan down-sampling does; eigenvalues below `threshold` degenerate.
Localizability frame_localizability(const std::vector<SurfaceSample>& surfaces, const Eigen::Isometry3d& T_world_imu, double voxel, double threshold);

/// IMU-only dead reckoning over what the IMU measured (true clock) from the end of the static start
/// (`static_duration` [s]): the true position and velocity there, the true attitude levelled by the
/// mean accelerometer reading over the static start (an accelerometer bias tilts it as it tilts a
/// filter's static initialization), the mean gyro reading as the gyro bias, no accelerometer bias.
/// Without a static start (< 0.05 s): the true state at the first sample and no biases. Stamps are
/// `clock0` + the sample time. Fed one sample at a time, so that a long recording never holds them
/// all (#18).
class DeadReckoning {
public:
  DeadReckoning(const Trajectory& trajectory, double static_duration, double clock0);
  /// The next sample (increasing time); appends the poses it makes known to `out` (none during the
  /// static start, then the last static sample's and each later sample's).
  void add(const ImuSample& sample, std::vector<StampedPose>& out);

private:
  void start(const ImuSample& first, std::vector<StampedPose>& out);
  void emit(double stamp, std::vector<StampedPose>& out) const;

  const Trajectory& trajectory_;
  double static_duration_, clock0_;
  bool started_ = false;
  std::size_t static_samples_ = 0;
  Eigen::Vector3d acc_sum_ = Eigen::Vector3d::Zero(), gyro_sum_ = Eigen::Vector3d::Zero();
  ImuSample previous_;
  Eigen::Matrix3d R_ = Eigen::Matrix3d::Identity();
  Eigen::Vector3d p_ = Eigen::Vector3d::Zero(), v_ = Eigen::Vector3d::Zero(), bg_ = Eigen::Vector3d::Zero();
};

}  // namespace asuka::sim
