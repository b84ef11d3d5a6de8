#pragma once
// The `sensor` block of an odometry config: T_imu_lidar, shared by the filter frontends, and the
// rigid transforms of other sensors (the camera, camera_config.hpp) read the same way.

#include <string>

#include <Eigen/Geometry>

namespace asuka {
class Config;
}

namespace asuka::lio {

/// Reads `sensor.extrinsic_t` [m] and `sensor.extrinsic_R` (9 numbers, row-major) as T_imu_lidar:
/// p_imu = R p_lidar + t, the lidar origin and axes in the IMU frame. Defaults: a Livox Avia's lidar
/// in its built-in IMU's frame, t = (0.04165, 0.02326, -0.0284), R = I. Throws ConfigError when R is
/// not 9 numbers or not a rotation.
Eigen::Isometry3d extrinsic_from_config(const Config& config);

/// The rigid transform at `t_key` [m] and `R_key` (9 numbers, row-major). Throws ConfigError naming
/// the key when R is not 9 numbers, or not a rotation (with how far from orthonormal it is, and its
/// determinant).
Eigen::Isometry3d rigid_from_config(const Config& config, const std::string& t_key, const std::string& R_key, const Eigen::Isometry3d& default_value);

}  // namespace asuka::lio
