#pragma once
// Smooth ground-truth trajectories of the IMU (body) frame in the world frame: C-infinity after a
// static start, joined to it by a C2 time warp, so the simulated IMU is exact. Derivatives are
// taken numerically with central differences whose error (~1e-7) is far below any sensor noise.

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Geometry>

#include <asuka_sim/scene.hpp>

namespace asuka::sim {

struct TrajectoryParams {
  std::string profile = "handheld";  ///< see profile_names()
  double static_duration = 3.0;      ///< [s] motionless start (IMU initialization)
  double ramp_duration = 2.0;        ///< [s] smooth ramp from rest to the profile's motion
  bool tilted_start = false;         ///< start with roll 8 deg, pitch -5 deg
  /// #17: 0 gives the profile's one motion; any other value a variation of it drawn from this seed,
  /// within the profile's limits (Trajectory's constructor): speed, loop size and mirror image,
  /// amplitudes, frequencies and phases of the turns, tilt and bumps.
  std::uint64_t motion_seed = 0;
};

/// The x-y points of every loop a trajectory can take in a scene's free region (the profile's own loop
/// and every variation `motion_seed` can draw, mirrored or not): every point of every such loop lies
/// within about `spacing` [m] of a sample (#17). A generated scene keeps its solids clear of them
/// (generated_scenes.cpp). Not for straight scenes.
std::vector<Eigen::Vector2d> loop_samples(const Eigen::Vector2d& free_center, const Eigen::Vector2d& free_half_size, double spacing = 0.5);

/// "static", "handheld" (~1 m/s, moderate turns), "aggressive" (>= 4 m/s, >= 80 deg/s yaw),
/// "vehicle" (>= 5 m/s, planar, yaw follows the heading), "extreme" (rotation bursts >= 300 deg/s).
std::vector<std::string> profile_names();

class Trajectory {
public:
  /// Throws std::invalid_argument for an unknown profile.
  Trajectory(const TrajectoryParams& params, const Scene& scene);

  Eigen::Isometry3d pose(double t) const;         ///< T_world_imu
  Eigen::Vector3d velocity(double t) const;       ///< [m/s] world
  Eigen::Vector3d acceleration(double t) const;   ///< [m/s^2] world, without gravity
  Eigen::Vector3d angular_velocity(double t) const;  ///< [rad/s] body frame
  /// Peak speed [m/s] and yaw rate [rad/s] over [0, duration], sampled at 100 Hz (for the sidecar).
  Eigen::Vector2d peaks(double duration) const;

private:
  double warp(double t) const;  ///< profile time: 0 while static, then C2-smoothly t-like
  Eigen::Vector3d position_at(double u) const;
  Eigen::Vector3d euler_at(double u) const;  ///< roll, pitch, yaw [rad]

  TrajectoryParams params_;
  Eigen::Vector3d center_;
  Eigen::Vector2d half_;
  bool straight_ = false;
  double speed_ = 1.0;      ///< [m/s] nominal
  double omega_ = 0.05;     ///< [rad/s] loop angular frequency
  double yaw_amp_ = 0.5;    ///< [rad]
  double yaw_freq_ = 0.5;   ///< [rad/s]
  double tilt_amp_ = 0.05;  ///< [rad] roll/pitch oscillation
  double tilt_freq_ = 1.3;  ///< [rad/s]
  double bump_amp_ = 0.05;  ///< [m] vertical oscillation
  bool heading_yaw_ = false;
  bool bursts_ = false;
  double mirror_ = 1.0;      ///< -1: the loop's mirror image (motion_seed)
  double yaw_phase_ = 0.0;   ///< [rad] (motion_seed)
  double tilt_phase_ = 0.0;  ///< [rad]
  double bump_phase_ = 0.0;  ///< [rad]
};

}  // namespace asuka::sim
