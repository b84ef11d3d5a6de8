#pragma once
// The `sensor` block of an odometry config: T_imu_lidar, shared by the filter frontends.

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

}  // namespace asuka::lio
