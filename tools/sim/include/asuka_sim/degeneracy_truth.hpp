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

/// IMU-only dead reckoning over `imu` (what the IMU measured, true clock) from the end of the static
/// start (`static_duration` [s]): the true position and velocity there, the true attitude levelled by
/// the mean accelerometer reading over the static start (an accelerometer bias tilts it as it tilts
/// a filter's static initialization), the mean gyro reading as the gyro bias, no accelerometer bias.
/// Without a static start (< 0.05 s): the true state at the first sample and no biases. Stamps are
/// `clock0` + the sample time.
std::vector<StampedPose> dead_reckoning(const std::vector<ImuSample>& imu, const Trajectory& trajectory, double static_duration, double clock0);

}  // namespace asuka::sim
