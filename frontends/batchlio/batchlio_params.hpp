#pragma once
// Parameters of the batchlio frontend, with units and defaults (config_odometry_batchlio.json; every
// key is documented in docs/frontends/batchlio.md).

#include <Eigen/Geometry>

#include <asuka/lio/cloud_preprocessor.hpp>

namespace asuka {
class Config;
}

namespace asuka::batchlio {

struct BatchlioParams {
  // sensor: T_imu_lidar, the lidar origin and orientation in the IMU frame (p_imu = R p_lidar + t).
  Eigen::Isometry3d T_imu_lidar = Eigen::Isometry3d::Identity();
  lio::PreprocessParams preprocess;  ///< R-PRE-1 (asuka/lio/cloud_preprocessor.hpp)

  // imu: the IMU is a measurement of the state's angular velocity and specific force.
  double gyro_cov = 1e-3;     ///< [(rad/s)^2] gyroscope measurement noise variance per sample
  double acc_cov = 1e-2;      ///< [(m/s^2)^2] accelerometer measurement noise variance per sample
  double b_gyro_cov = 1e-6;   ///< [(rad/s^2)^2 s] gyroscope bias random walk (variance per second)
  double b_acc_cov = 1e-4;    ///< [(m/s^3)^2 s] accelerometer bias random walk (variance per second)
  double satu_gyro = 35.0;    ///< [rad/s] gyroscope range: an axis at >= 99 % of it is not used
  double satu_acc = 29.4;     ///< [m/s^2] accelerometer range (3 g): an axis at >= 99 % of it is not used
  double gravity = 9.80665;   ///< [m/s^2]
  int init_imu_count = 100;   ///< MAX_INI_COUNT: IMU samples averaged at rest (R-IMU-1)

  // process: constant angular velocity and specific force between measurements, driven by noise.
  double omega_process_cov = 100.0;  ///< [(rad/s^2)^2 s] angular acceleration noise (variance per second)
  double acc_process_cov = 1000.0;   ///< [(m/s^3)^2 s] jerk noise (variance per second)

  // mapping
  double batch_dt = 1e-3;              ///< [s] window of points per update; 0 = one update per point (Point-LIO)
  bool batch_deskew = true;            ///< move each point of a window to the window end with the filter's velocities
  double scan_voxel_size = 0.5;        ///< [m] down-sampling of each scan before registration
  double map_voxel_size = 0.5;         ///< [m] map voxel edge
  double map_min_point_distance = 0.2; ///< [m] map down-sampling
  double local_map_half_size = 150.0;  ///< [m] map box around the sensor
  int knn = 5;                         ///< map points per plane fit
  double plane_max_residual = 0.1;     ///< [m] a fitted plane's points must lie this close
  double measurement_std = 0.02;       ///< [m] point-to-plane residual noise
  double max_residual = 0.1;           ///< [m] larger point-to-plane residuals are not used

  /// Reads `config` (sections sensor, preprocess, imu, process, mapping); throws ConfigError for bad
  /// values and clamps the preprocess keys as R-PRE-1 documents.
  static BatchlioParams from_config(const Config& config);
};

}  // namespace asuka::batchlio
